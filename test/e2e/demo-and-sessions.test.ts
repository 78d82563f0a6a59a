import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { describe, test } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CLI, freePort, httpUpstream, startGateway, startSim, TOKEN } from '../helpers/processes.js'
import { callJson, waitFor } from '../helpers/results.js'

function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number)
  } catch {
    return []
  }
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('the demo default', () => {
  test('demo:serve-without-config: two sites over real transports, URL and token printed, clean stop', async () => {
    const port = await freePort()
    const child = spawn(process.execPath, [CLI, 'serve'], {
      env: { ...process.env, GATEWAY_PORT: String(port), GATEWAY_TOKEN: TOKEN, GATEWAY_CONFIG: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout?.on('data', (d) => {
      out += d
    })
    child.stderr?.resume()
    await waitFor('the demo banner', () => (/Token: /.test(out) ? true : undefined), 30_000)
    assert.match(out, new RegExp(`URL: +http://127\\.0\\.0\\.1:${port}/mcp`))
    assert.match(out, new RegExp(`Token: ${TOKEN}`))
    for (const name of ['hq-network', 'hq-protect', 'hq-access', 'branch-network'])
      assert.match(out, new RegExp(`upstream ${name} .*: connected`))
    const sims = childrenOf(child.pid as number)
    assert.equal(sims.length, 4, 'three HTTP sims and one stdio sim')

    const client = new Client({ name: 'newcomer', version: '1' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    )
    const hq = await callJson<{ site: string; clients: unknown[] }>(client, 'unifi_execute', {
      tool: 'unifi_list_clients',
      site: 'hq',
    })
    assert.equal(hq.site, 'hq')
    const branch = await callJson<{ site: string }>(client, 'unifi_execute', {
      tool: 'unifi_list_clients',
      site: 'branch',
    })
    assert.equal(branch.site, 'branch')
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name)
    assert.ok(prompts.includes('hq-network__network_health_check'))
    assert.ok(prompts.includes('branch-network__network_health_check'))
    assert.ok(prompts.includes('hq-protect__protect_health_check'))
    await client.close()

    child.kill('SIGTERM')
    const code = await new Promise<number | null>((r) => child.once('exit', r))
    assert.equal(code, 0)
    await waitFor(
      'every simulator to exit',
      () => (sims.every((pid) => !alive(pid)) ? true : undefined),
      10_000,
    )
  })
})

describe('downstream sessions', () => {
  test('sessions:idle-expiry: an idle session is closed and its id then gets 404; the client can start again', async (t) => {
    const sim = await startSim('network', 'hq')
    const gw = await startGateway({
      auth: { tokens: [{ name: 'agent', token: TOKEN }] },
      limits: { sessionIdleMs: 1_000 },
      upstreams: [httpUpstream('hq-network', 'hq', 'network', sim.url)],
    })
    t.after(async () => {
      await gw.stop()
      await sim.kill()
    })
    const transport = new StreamableHTTPClientTransport(new URL(gw.url), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    })
    const client = new Client({ name: 'idle', version: '1' })
    await client.connect(transport)
    await client.callTool({
      name: 'unifi_load_tools',
      arguments: { tools: ['unifi_list_clients'] },
    })
    const ready = async () =>
      (await (await fetch(gw.url.replace('/mcp', '/ready'))).json()) as { sessions: number }
    assert.equal((await ready()).sessions, 1)
    await waitFor(
      'the idle session to expire',
      async () => ((await ready()).sessions === 0 ? true : undefined),
      10_000,
      200,
    )
    const sid = transport.sessionId as string
    const res = await fetch(gw.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sid,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    })
    assert.equal(res.status, 404)
    const again = await gw.connect(TOKEN)
    const names = (await again.listTools()).tools.map((x) => x.name)
    assert.ok(
      !names.includes('hq-network__unifi_list_clients'),
      'what the old session loaded went with it',
    )
  })
})
