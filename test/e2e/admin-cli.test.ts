import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import {
  ADMIN_TOKEN,
  runCli,
  startGateway,
  startSim,
  TOKEN,
  tempDir,
} from '../helpers/processes.js'

test('cli:register-list-enable-disable-deregister: a readable table and exit codes', async (t) => {
  const [hq, branch] = await Promise.all([startSim('network', 'hq'), startSim('protect', 'hq')])
  const gw = await startGateway({
    auth: { tokens: [{ name: 'agent', token: TOKEN }], adminToken: ADMIN_TOKEN },
    upstreams: [],
  })
  t.after(async () => {
    await gw.stop()
    await Promise.all([hq.kill(), branch.kill()])
  })
  const base = gw.url.replace('/mcp', '')
  const env = { GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN, GATEWAY_URL: base, HQ_URL: hq.url }
  const file = join(await tempDir(), 'hq.json')
  await writeFile(
    file,
    JSON.stringify({
      name: 'hq-network',
      site: 'hq',
      app: 'network',
      transport: 'streamable_http',
      url: '${HQ_URL}',
    }),
  )

  const fromFile = await runCli(['register', file], env)
  assert.equal(fromFile.code, 0, fromFile.stderr)
  assert.match(
    fromFile.stdout,
    /registered hq-network \(site hq, network, streamable_http\): connected, 184 tools, 6 prompts/,
  )

  const fromFlags = await runCli(
    [
      'register',
      '--name',
      'hq-protect',
      '--site',
      'hq',
      '--app',
      'protect',
      '--upstream-url',
      branch.url,
      '--header',
      'X-Site: hq',
    ],
    env,
  )
  assert.equal(fromFlags.code, 0, fromFlags.stderr)

  const again = await runCli(['register', file], env)
  assert.equal(again.code, 1)
  assert.match(again.stderr, /already registered; use force to replace it \(HTTP 409\)/)
  assert.equal((await runCli(['register', file, '--force'], env)).code, 0)

  const list = await runCli(['list'], env)
  assert.equal(list.code, 0)
  const lines = list.stdout.trim().split('\n')
  assert.match(
    lines[0] as string,
    /^NAME\s+SITE\s+APP\s+TRANSPORT\s+ENABLED\s+STATUS\s+TOOLS\s+PROMPTS\s+SOURCE\s+URL\/COMMAND$/,
  )
  assert.match(
    lines[1] as string,
    /^hq-network\s+hq\s+network\s+streamable_http\s+yes\s+connected\s+184\s+6\s+registered\s+http:\/\/127\.0\.0\.1:\d+\/mcp$/,
  )
  assert.match(lines[2] as string, /^hq-protect\s+hq\s+protect/)

  const disable = await runCli(['disable', 'hq-protect'], env)
  assert.equal(disable.code, 0)
  assert.match(disable.stdout, /disabled hq-protect \(56 tools, 1 prompts affected\)/)
  assert.match(
    (await runCli(['list'], env)).stdout,
    /hq-protect\s+hq\s+protect\s+streamable_http\s+no\s+disabled/,
  )
  assert.equal((await runCli(['enable', 'hq-protect'], env)).code, 0)

  assert.equal((await runCli(['deregister', 'hq-protect'], env)).code, 0)
  const gone = await runCli(['deregister', 'hq-protect'], env)
  assert.equal(gone.code, 1)
  assert.match(gone.stderr, /no upstream named "hq-protect" \(HTTP 404\)/)

  assert.equal((await runCli(['deregister'], env)).code, 2, 'usage')
  assert.equal((await runCli(['register', '--name', 'x'], env)).code, 2, 'needs a URL or command')
  const invalid = await runCli(
    ['register', '--name', 'Bad_Name', '--upstream-url', 'http://127.0.0.1:1/mcp'],
    env,
  )
  assert.equal(invalid.code, 2)
  assert.match(invalid.stderr, /must be a lower-case slug/)
  const noToken = await runCli(['list'], { GATEWAY_URL: base, GATEWAY_ADMIN_TOKEN: '' })
  assert.equal(noToken.code, 2)
  const wrong = await runCli(['list'], {
    GATEWAY_URL: base,
    GATEWAY_ADMIN_TOKEN: 'wrong-admin-token-0123456789',
  })
  assert.equal(wrong.code, 1)
  assert.match(wrong.stderr, /HTTP 401/)
  const down = await runCli(['list'], {
    GATEWAY_URL: 'http://127.0.0.1:9',
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
  })
  assert.equal(down.code, 1)
  assert.match(down.stderr, /cannot reach the gateway/)
})
