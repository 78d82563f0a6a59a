import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { ConfigError } from '../../src/config/issues.js'
import { loadConfigFile, parseConfig } from '../../src/config/load.js'

const EXAMPLE = fileURLToPath(new URL('../../../config/gateway.example.json', import.meta.url))
const env = {
  GATEWAY_TOKEN: 'agent-token-0123456789abcdef',
  HELPDESK_TOKEN: 'helpdesk-token-0123456789abcdef',
  GATEWAY_ADMIN_TOKEN: 'admin-token-0123456789abcdef',
  BRANCH_API_KEY: 'key',
}

function problems(raw: unknown, e: Record<string, string> = {}): string[] {
  try {
    parseConfig(raw, e)
    return []
  } catch (err) {
    assert.ok(err instanceof ConfigError)
    return err.issues.map((i) => `${i.path}: ${i.message}`)
  }
}

test('config:example: the documented example config is valid', async () => {
  const { config } = await loadConfigFile(EXAMPLE, env)
  assert.equal(config.upstreams.length, 4)
  assert.equal(config.upstreams[3]?.site, 'everything', 'site defaults to the upstream name')
  assert.equal(config.upstreams[3]?.app, 'generic')
  assert.equal(config.limits.perUpstreamConcurrency, 4)
  assert.deepEqual(JSON.parse(await readFile(EXAMPLE, 'utf8')).limits.concurrency, 16)
})

test('config:defaults: an empty file gives the documented defaults', () => {
  const config = parseConfig({}, {})
  assert.equal(config.listen.host, '127.0.0.1')
  assert.equal(config.listen.port, 8080)
  assert.equal(config.registrationMode, 'lazy')
  assert.equal(config.limits.callTimeoutMs, 30_000)
  assert.equal(config.limits.maxRetainedJobs, 1_000)
})

test('config:env-overrides: GATEWAY_* variables win over the file', () => {
  const config = parseConfig(
    { listen: { port: 1 }, registrationMode: 'lazy' },
    {
      GATEWAY_PORT: '9090',
      GATEWAY_HOST: '127.0.0.2',
      GATEWAY_TOOL_REGISTRATION_MODE: 'EAGER',
      GATEWAY_TOKEN: 'x'.repeat(20),
    },
  )
  assert.equal(config.listen.port, 9090)
  assert.equal(config.listen.host, '127.0.0.2')
  assert.equal(config.registrationMode, 'eager')
  assert.deepEqual(
    config.auth.tokens.map((t) => t.name),
    ['default'],
  )
  assert.deepEqual(problems({}, { GATEWAY_TOOL_REGISTRATION_MODE: 'sometimes' }), [
    'env.GATEWAY_TOOL_REGISTRATION_MODE: "sometimes" is not one of lazy, meta_only, eager',
  ])
})

test('config:env-expansion: ${VAR} in any string, $${VAR} stays literal, unset names the variable', () => {
  const config = parseConfig(
    {
      upstreams: [
        {
          name: 'a',
          transport: 'stdio',
          command: '${CMD}',
          args: ['$${KEEP}'],
          env: { K: 'v-${V}' },
        },
      ],
    },
    { CMD: 'uvx', V: '1' },
  )
  const u = config.upstreams[0]
  assert.ok(u?.transport === 'stdio')
  assert.equal(u.command, 'uvx')
  assert.deepEqual(u.args, ['${KEEP}'])
  assert.deepEqual(u.env, { K: 'v-1' })
  assert.deepEqual(
    problems({ upstreams: [{ name: 'a', transport: 'stdio', command: '${NOPE}' }] }),
    [
      'upstreams[0].command: environment variable NOPE is not set (export it, or remove ${NOPE} from the file)',
    ],
  )
})

test('config:cross-checks: one UniFi app per site, distinct tokens', () => {
  const found = problems({
    auth: {
      adminToken: 'same-token-0123456789',
      tokens: [
        { name: 'a', token: 'same-token-0123456789' },
        { name: 'a', token: 'other-token-0123456789' },
      ],
    },
    upstreams: [
      { name: 'one', site: 'hq', app: 'network', transport: 'stdio', command: 'x' },
      { name: 'two', site: 'hq', app: 'network', transport: 'stdio', command: 'x' },
    ],
  })
  assert.ok(
    found.some((p) => p.startsWith('upstreams[1].site: site "hq" already has a network upstream')),
  )
  assert.ok(found.includes('auth.tokens[1].name: duplicate token name "a"'))
  assert.ok(found.includes('auth.tokens[0].token: a client token must differ from auth.adminToken'))
})

test('config:names: upstream and site names are slugs without "_"', () => {
  for (const bad of ['Hq', 'hq_net', '-hq', 'hq-', 'a'.repeat(25), '']) {
    assert.ok(
      problems({ upstreams: [{ name: bad, transport: 'stdio', command: 'x' }] }).some((p) =>
        p.startsWith('upstreams[0].name'),
      ),
      bad,
    )
  }
  assert.deepEqual(
    problems({ upstreams: [{ name: 'a'.repeat(24), transport: 'stdio', command: 'x' }] }),
    [],
  )
})
