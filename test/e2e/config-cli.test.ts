import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { runCli, tempDir } from '../helpers/processes.js'

async function configFile(content: string): Promise<string> {
  const file = join(await tempDir(), 'gateway.json')
  await writeFile(file, content)
  return file
}

describe('validate --config', () => {
  test('config:valid: exit 0 and a summary', async () => {
    const file = await configFile(
      JSON.stringify({
        auth: { tokens: [{ name: 'agent', token: '${AGENT_TOKEN}' }] },
        upstreams: [
          {
            name: 'hq-network',
            site: 'hq',
            app: 'network',
            transport: 'streamable_http',
            url: 'http://127.0.0.1:3000/mcp',
          },
        ],
      }),
    )
    const r = await runCli(['validate', '--config', file], {
      AGENT_TOKEN: 'agent-token-0123456789abcdef',
    })
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /valid \(1 upstream/)
  })

  test('config:every-problem-with-its-path: unknown key, bad name, unset variable → exit 2', async () => {
    const file = await configFile(
      JSON.stringify({
        listen: { host: '127.0.0.1', prot: 8080 },
        auth: { tokens: [{ name: 'agent', token: '${UNSET_GATEWAY_TEST_VAR}' }] },
        upstreams: [
          {
            name: 'HQ_Network',
            app: 'network',
            transport: 'streamable_http',
            url: 'http://127.0.0.1:3000/mcp',
          },
          { name: 'branch', app: 'nework', transport: 'stdio', command: 'x' },
          { name: 'dup', transport: 'streamable_http', url: 'ftp://x' },
          { name: 'dup', transport: 'stdio', command: 'y' },
        ],
      }),
    )
    const r = await runCli(['validate', '--config', file], {})
    assert.equal(r.code, 2)
    const lines = r.stderr
    assert.match(lines, /listen\.prot: unknown key/)
    assert.match(
      lines,
      /auth\.tokens\[0\]\.token: environment variable UNSET_GATEWAY_TEST_VAR is not set/,
    )
    assert.match(lines, /upstreams\[0\]\.name: must be a lower-case slug/)
    assert.match(lines, /upstreams\[1\]\.app:/)
    assert.match(lines, /upstreams\[2\]\.url: must be an http:\/\/ or https:\/\/ URL/)
    assert.match(lines, /upstreams\[3\]\.name: duplicate upstream name "dup"/)
  })

  test('config:bad-json: the line and column of the mistake, exit 2', async () => {
    const file = await configFile('{\n  "upstreams": [\n    { "name": "a", }\n  ]\n}')
    const r = await runCli(['validate', '--config', file])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /not valid JSON \(line 3, column \d+\)/)
  })

  test('config:missing-file: exit 2 with the reason', async () => {
    const r = await runCli(['validate', '--config', '/nonexistent/gateway.json'])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /cannot read the file \(ENOENT\)/)
  })

  test('config:serve-refuses-bad-config: serve exits 2 on the same problems', async () => {
    const file = await configFile(
      JSON.stringify({ upstreams: [{ name: 'x', transport: 'carrier-pigeon' }] }),
    )
    const r = await runCli(['serve', '--config', file])
    assert.equal(r.code, 2)
    assert.match(
      r.stderr,
      /upstreams\[0\]\.transport: transport must be "streamable_http" or "stdio"/,
    )
  })

  test('config:no-token-off-loopback: serve refuses to start open on a public address', async () => {
    const file = await configFile(JSON.stringify({ listen: { host: '0.0.0.0', port: 0 } }))
    const r = await runCli(['serve', '--config', file])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /refusing to serve without a client token/)
  })

  test('cli:bad-usage: unknown flags and commands exit 2', async () => {
    assert.equal((await runCli(['serve', '--bogus'])).code, 2)
    assert.equal((await runCli(['frobnicate'])).code, 2)
    assert.equal((await runCli(['sim', '--app', 'wifi'])).code, 2)
  })
})
