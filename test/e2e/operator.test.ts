import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { tappedEverything } from '../helpers/everything.js'
import {
  ADMIN_TOKEN,
  type Gateway,
  httpUpstream,
  runCli,
  startGateway,
  startSim,
  stdioSimUpstream,
  TOKEN,
  tempDir,
} from '../helpers/processes.js'
import { callJson, waitFor } from '../helpers/results.js'

async function api(gw: Gateway, method: string, path: string, body?: unknown, token = ADMIN_TOKEN) {
  const res = await fetch(gw.url.replace('/mcp', path), {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  })
  const text = await res.text()
  return {
    status: res.status,
    body: text
      ? (JSON.parse(text) as Record<string, unknown> & Record<string, unknown>[])
      : undefined,
  }
}

const auth = { tokens: [{ name: 'agent', token: TOKEN }], adminToken: ADMIN_TOKEN }

describe('admin API', () => {
  test('admin:register-deregister-force-409-401: registrations take effect at once, secrets never come back', async (t) => {
    const [hq, branch] = await Promise.all([
      startSim('network', 'hq'),
      startSim('access', 'branch'),
    ])
    const gw = await startGateway({
      auth,
      upstreams: [httpUpstream('hq-network', 'hq', 'network', hq.url)],
    })
    t.after(async () => {
      await gw.stop()
      await Promise.all([hq.kill(), branch.kill()])
    })
    const client = await gw.connect(TOKEN)
    let changed = 0
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed++
    })
    const entry = {
      name: 'branch-access',
      site: 'branch',
      app: 'access',
      transport: 'streamable_http',
      url: branch.url,
      bearer_token: 'upstream-secret-0123456789',
    }

    assert.equal(
      (await api(gw, 'POST', '/api/v0/servers', entry, 'wrong-token-0123456789')).status,
      401,
    )
    assert.equal(
      (await api(gw, 'POST', '/api/v0/servers', entry, TOKEN)).status,
      401,
      'a client token is not an admin token',
    )
    const created = await api(gw, 'POST', '/api/v0/servers', entry)
    assert.equal(created.status, 201)
    assert.equal(created.body?.status, 'connected')
    assert.equal(created.body?.tools, 31)
    assert.equal(created.body?.hasBearerToken, true)
    assert.doesNotMatch(JSON.stringify(created.body), /upstream-secret/)
    await waitFor('tools/list_changed after the registration', () =>
      changed > 0 ? true : undefined,
    )
    const doors = await callJson<{ count: number }>(client, 'access_tool_index', {
      category: 'doors',
    })
    assert.equal(doors.count, 6)

    const dup = await api(gw, 'POST', '/api/v0/servers', entry)
    assert.equal(dup.status, 409)
    assert.match(String(dup.body?.error), /already registered; use force/)
    assert.equal(
      (await api(gw, 'POST', '/api/v0/servers?force=true', { ...entry, description: 'replaced' }))
        .status,
      200,
    )
    assert.equal(
      (await api(gw, 'GET', '/api/v0/servers/branch-access')).body?.description,
      'replaced',
    )
    const fromConfig = await api(gw, 'POST', '/api/v0/servers?force=true', {
      ...entry,
      name: 'hq-network',
      site: 'elsewhere',
    })
    assert.equal(fromConfig.status, 409)
    assert.match(String(fromConfig.body?.error), /defined in the config file/)
    const slot = await api(gw, 'POST', '/api/v0/servers', { ...entry, name: 'second-access' })
    assert.equal(slot.status, 409)
    const bad = await api(gw, 'POST', '/api/v0/servers', {
      name: 'Bad_Name',
      transport: 'streamable_http',
      url: 'ftp://x',
    })
    assert.equal(bad.status, 400)
    assert.match(String(bad.body?.error), /name: must be a lower-case slug.*url: must be an http/)
    assert.equal((await api(gw, 'POST', '/api/v0/servers', '{not json')).status, 400)
    const stdio = await api(gw, 'POST', '/api/v0/servers', {
      name: 'shell',
      transport: 'stdio',
      command: 'sh',
    })
    assert.equal(stdio.status, 403)
    assert.match(String(stdio.body?.error), /allowStdioRegistration/)

    const tools = await api(gw, 'GET', '/api/v0/tools?server=branch-access')
    assert.equal((tools.body as unknown as unknown[]).length, 31)
    assert.ok(
      (tools.body as unknown as { name: string }[]).some(
        (x) => x.name === 'branch-access__access_unlock_door',
      ),
    )
    const prompts = await api(gw, 'GET', '/api/v0/prompts')
    assert.ok(
      (prompts.body as unknown as { name: string }[]).some(
        (p) => p.name === 'hq-network__network_health_check',
      ),
    )
    assert.equal((await api(gw, 'GET', '/api/v0/excluded')).status, 200)

    const disabled = await api(gw, 'POST', '/api/v0/servers/branch-access/disable')
    assert.deepEqual(disabled.body, {
      name: 'branch-access',
      enabled: false,
      tools_affected: 31,
      prompts_affected: 0,
    })
    const names = (await client.listTools()).tools.map((x) => x.name)
    assert.ok(!names.includes('access_tool_index'), 'a disabled upstream is gone from tools/list')
    assert.equal(
      (await api(gw, 'POST', '/api/v0/servers/branch-access/enable')).body?.enabled,
      true,
    )
    assert.equal(
      (await callJson<{ count: number }>(client, 'access_tool_index', { category: 'doors' })).count,
      6,
    )

    assert.equal((await api(gw, 'DELETE', '/api/v0/servers/branch-access')).status, 204)
    assert.equal((await api(gw, 'DELETE', '/api/v0/servers/branch-access')).status, 404)
    assert.equal((await api(gw, 'DELETE', '/api/v0/servers/hq-network')).status, 409)
    const list = await api(gw, 'GET', '/api/v0/servers')
    assert.deepEqual(
      (list.body as unknown as { name: string }[]).map((s) => s.name),
      ['hq-network'],
    )
    // The admin token never works on /mcp.
    const mcp = await fetch(gw.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
        },
      }),
    })
    assert.equal(mcp.status, 401)
  })

  test('admin:persistence: registrations survive a restart; a kill -9 mid-burst loses nothing acknowledged', async (t) => {
    const sites = Array.from({ length: 24 }, (_, i) => `b${i + 1}`)
    const sim = await startSim('access', 'x', ['--sites', sites.join(',')])
    t.after(() => sim.kill())
    const dir = await tempDir()
    const first = await startGateway({ auth, upstreams: [] }, { dir })
    const acknowledged: string[] = []
    const burst = sites.map(async (site, i) => {
      await new Promise((r) => setTimeout(r, i * 15))
      const r = await api(
        first,
        'POST',
        '/api/v0/servers',
        httpUpstream(`${site}-access`, site, 'access', sim.urls[site] as string),
      ).catch(() => undefined)
      if (r?.status === 201) acknowledged.push(`${site}-access`)
    })
    await waitFor(
      'some registrations',
      () => (acknowledged.length >= 6 ? true : undefined),
      30_000,
      5,
    )
    const exited = new Promise((r) => first.child.once('exit', r))
    first.child.kill('SIGKILL')
    await exited
    await Promise.all(burst)
    assert.ok(acknowledged.length >= 6)
    const second = await startGateway({ auth, upstreams: [] }, { dir })
    t.after(() => second.stop())
    const names = (
      (await api(second, 'GET', '/api/v0/servers')).body as unknown as {
        name: string
        status: string
      }[]
    ).map((s) => s.name)
    for (const name of acknowledged)
      assert.ok(names.includes(name), `${name} was acknowledged and must survive`)
    const state = JSON.parse(await readFile(join(dir, 'gateway-state.json'), 'utf8')) as {
      version: number
      servers: unknown[]
    }
    assert.equal(state.version, 1)
    assert.equal(state.servers.length, names.length)
  })

  test('admin:corrupt-state: a corrupt state file stops start-up with a clear error and is left untouched', async () => {
    const dir = await tempDir()
    const stateFile = join(dir, 'gateway-state.json')
    await writeFile(stateFile, '{"version": 1, "servers": [ {"name": "x", ')
    await writeFile(join(dir, 'gateway.json'), JSON.stringify({ auth, listen: { port: 0 } }))
    const r = await runCli(['serve', '--config', join(dir, 'gateway.json')])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /gateway-state\.json.*not valid JSON.*was not changed/s)
    assert.equal(await readFile(stateFile, 'utf8'), '{"version": 1, "servers": [ {"name": "x", ')
  })
})

describe('per-client tokens', () => {
  test('tokens:site-allow-lists: a client sees and reaches only its sites, in index, execute, batch, prompts and tools', async (t) => {
    const [hq, branch] = await Promise.all([
      startSim('network', 'hq'),
      startSim('network', 'branch'),
    ])
    const everything = await tappedEverything('everything')
    const gw = await startGateway({
      auth: {
        ...auth,
        tokens: [
          ...auth.tokens,
          { name: 'hq-helpdesk', token: 'hq-helpdesk-token-0123456789', sites: ['hq'] },
        ],
      },
      upstreams: [
        httpUpstream('hq-network', 'hq', 'network', hq.url),
        httpUpstream('branch-network', 'branch', 'network', branch.url),
        everything.upstream,
      ],
    })
    t.after(async () => {
      await gw.stop()
      await Promise.all([hq.kill(), branch.kill()])
    })
    const all = await gw.connect(TOKEN)
    const hqOnly = await gw.connect('hq-helpdesk-token-0123456789')
    const idx = await callJson<{ tools: { sites?: string[] }[] }>(all, 'unifi_tool_index', {
      category: 'dpi',
    })
    assert.deepEqual(idx.tools[0]?.sites, ['branch', 'hq'])
    const mine = await callJson<{ tools: { sites?: string[] }[] }>(hqOnly, 'unifi_tool_index', {
      category: 'dpi',
    })
    assert.equal(mine.tools[0]?.sites, undefined, 'one visible site: no sites field, no branch')
    const denied = await callJson<{ error: string }>(hqOnly, 'unifi_execute', {
      tool: 'unifi_list_devices',
      site: 'branch',
    })
    assert.match(
      denied.error,
      /site "branch" has no UniFi Network upstream on this gateway; sites: hq$/,
    )
    const ok = await callJson<{ site: string }>(hqOnly, 'unifi_execute', {
      tool: 'unifi_list_devices',
    })
    assert.equal(ok.site, 'hq', 'site may be left out: hq is its only site')
    const batch = await callJson<{ jobs: { site: string }[] }>(hqOnly, 'unifi_batch', {
      operations: [{ tool: 'unifi_list_devices', site: '*' }],
    })
    assert.deepEqual(
      batch.jobs.map((j) => j.site),
      ['hq'],
    )
    const prompts = (await hqOnly.listPrompts()).prompts.map((p) => p.name)
    assert.ok(prompts.every((p) => p.startsWith('hq-network__')))
    await assert.rejects(
      hqOnly.getPrompt({
        name: 'branch-network__network_health_check',
        arguments: { site_id: 'branch' },
      }),
      /no upstream named "branch-network"/,
    )
    const tools = (await hqOnly.listTools()).tools.map((x) => x.name)
    assert.ok(
      !tools.some((n) => n.startsWith('everything__')),
      'a generic upstream is its own site',
    )
    assert.ok((await all.listTools()).tools.some((x) => x.name === 'everything__echo'))
  })
})

describe('health, metrics, logs', () => {
  test('ops:ready-follows-upstream and metrics move', async (t) => {
    let sim = await startSim('network', 'hq')
    const port = sim.port
    const gw = await startGateway({
      auth,
      limits: { healthCheckIntervalMs: 500 },
      upstreams: [httpUpstream('hq-network', 'hq', 'network', sim.url)],
    })
    t.after(async () => {
      await gw.stop()
      await sim.kill()
    })
    const ready = async () =>
      (await (await fetch(gw.url.replace('/mcp', '/ready'))).json()) as {
        status: string
        upstreams: Record<string, unknown>[]
      }
    assert.equal((await ready()).status, 'ready')
    assert.deepEqual(Object.keys((await ready()).upstreams[0] ?? {}).sort(), [
      'app',
      'connected',
      'connectedAt',
      'enabled',
      'inFlight',
      'lastError',
      'lastOkAt',
      'latencyMs',
      'name',
      'queued',
      'reconnects',
      'site',
      'status',
      'transport',
    ])
    await sim.kill('SIGKILL')
    await waitFor('/ready to show the upstream down', async () =>
      (await ready()).status === 'unavailable' ? true : undefined,
    )
    sim = await startSim('network', 'hq', [], port)
    await waitFor(
      '/ready to recover on its own',
      async () => ((await ready()).status === 'ready' ? true : undefined),
      40_000,
      200,
    )

    const client = await gw.connect(TOKEN)
    await callJson(client, 'unifi_execute', { tool: 'unifi_list_devices' })
    const batch = await callJson<{ jobs: { jobId: string }[] }>(client, 'unifi_batch', {
      operations: [{ tool: 'unifi_list_wlans' }],
    })
    await callJson(client, 'unifi_batch_status', { jobId: batch.jobs[0]?.jobId, wait_ms: 5_000 })
    const metrics = await (await fetch(gw.url.replace('/mcp', '/metrics'))).text()
    assert.match(
      metrics,
      /unifi_gateway_tool_calls_total\{upstream="hq-network",site="hq",tool="unifi_list_devices",outcome="ok",via="execute"\} 1/,
    )
    assert.match(
      metrics,
      /unifi_gateway_tool_call_duration_seconds_bucket\{le="[^"]+",upstream="hq-network",outcome="ok"\} \d/,
    )
    assert.match(metrics, /unifi_gateway_jobs_finished_total\{status="done"\} 1/)
    assert.match(
      metrics,
      /unifi_gateway_upstream_up\{upstream="hq-network",site="hq",app="network"\} 1/,
    )
    assert.match(metrics, /unifi_gateway_sessions [1-9]/)
    assert.match(metrics, /unifi_gateway_process_resident_memory_bytes \d+/)
    const logs = gw.logs()
    assert.ok(
      logs.some(
        (l) =>
          l.msg === 'upstream call' &&
          l.tool === 'unifi_list_devices' &&
          l.outcome === 'ok' &&
          typeof l.ms === 'number',
      ),
    )
    assert.ok(!JSON.stringify(logs).includes(TOKEN), 'no secret in the logs')
  })
})

describe('lifecycle', () => {
  test('lifecycle:sigterm: running jobs finish, then every child process is gone', async () => {
    const gw = await startGateway({
      auth,
      upstreams: [
        stdioSimUpstream('one-network', 'one', 'network', ['--latency-ms', '800']),
        stdioSimUpstream('two-network', 'two', 'network'),
      ],
    })
    const children = execFileSync('pgrep', ['-P', String(gw.child.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number)
    assert.equal(children.length, 2)
    const client = await gw.connect(TOKEN)
    const batch = await callJson<{ jobs: { jobId: string }[] }>(client, 'unifi_batch', {
      operations: [{ tool: 'unifi_list_devices', site: 'one' }],
    })
    assert.equal(batch.jobs.length, 1)
    gw.child.kill('SIGTERM')
    const code = await new Promise<number | null>((r) => gw.child.once('exit', r))
    assert.equal(code, 0)
    const alive = children.filter((pid) => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    })
    assert.deepEqual(alive, [], 'no orphan upstream process')
    assert.ok(gw.logs().some((l) => l.msg === 'shutting down' && l.runningJobs === 1))
    assert.ok(
      gw.logs().some((l) => l.msg === 'upstream call' && l.via === 'batch' && l.outcome === 'ok'),
      'the running job finished',
    )
  })

  test('lifecycle:sighup: a good file is applied without dropping sessions; a broken one is refused', async (t) => {
    const [hq, branch] = await Promise.all([
      startSim('network', 'hq'),
      startSim('network', 'branch'),
    ])
    const base = { auth, upstreams: [httpUpstream('hq-network', 'hq', 'network', hq.url)] }
    const gw = await startGateway(base)
    t.after(async () => {
      await gw.stop()
      await Promise.all([hq.kill(), branch.kill()])
    })
    const client = await gw.connect(TOKEN)
    await callJson(client, 'unifi_execute', { tool: 'unifi_list_devices' })
    const hqSessions = (await hq.stats()).sessions
    await writeFile(
      gw.configFile,
      JSON.stringify({
        ...base,
        listen: { port: 0 },
        readOnly: true,
        upstreams: [
          ...base.upstreams,
          httpUpstream('branch-network', 'branch', 'network', branch.url),
        ],
      }),
    )
    gw.child.kill('SIGHUP')
    await waitFor('config reloaded', () => gw.logs().find((l) => l.msg === 'config reloaded'))
    assert.deepEqual(gw.logs().find((l) => l.msg === 'config reloaded')?.added, ['branch-network'])
    const body = await callJson<{ site: string }>(client, 'unifi_execute', {
      tool: 'unifi_list_devices',
      site: 'branch',
    })
    assert.equal(body.site, 'branch', 'the same session sees the new site')
    const refused = await callJson<{ error: string }>(client, 'unifi_execute', {
      tool: 'unifi_reboot_device',
      site: 'hq',
      arguments: { mac_address: 'x' },
    })
    assert.match(refused.error, /read-only/)
    assert.equal((await hq.stats()).sessions, hqSessions, 'the unchanged upstream kept its session')

    await writeFile(gw.configFile, '{"upstreams": [ oops')
    gw.child.kill('SIGHUP')
    await waitFor('reload refused', () => gw.logs().find((l) => l.msg === 'config reload refused'))
    const still = await callJson<{ site: string }>(client, 'unifi_execute', {
      tool: 'unifi_list_devices',
      site: 'branch',
    })
    assert.equal(still.site, 'branch', 'the running config stays')
  })
})
