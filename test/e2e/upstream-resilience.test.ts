import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { describe, test } from 'node:test'
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import {
  freePort,
  httpUpstream,
  startGateway,
  startSim,
  stdioSimUpstream,
  TOKEN,
} from '../helpers/processes.js'
import { callJson, waitFor } from '../helpers/results.js'

type Ready = {
  status: string
  upstreams: { name: string; connected: boolean; lastError: string | null; reconnects: number }[]
}
const ready = async (url: string) =>
  (await (await fetch(url.replace('/mcp', '/ready'))).json()) as Ready

describe('upstream resilience', () => {
  test('upstream:restart: an HTTP upstream killed and restarted serves the next call, no gateway restart', async (t) => {
    const port = await freePort()
    let sim = await startSim('network', 'hq', [], port)
    const gw = await startGateway({
      auth: { tokens: [{ name: 'agent', token: TOKEN }] },
      limits: { healthCheckIntervalMs: 500 },
      upstreams: [httpUpstream('hq-network', 'hq', 'network', sim.url)],
    })
    t.after(async () => {
      await gw.stop()
      await sim.kill()
    })
    const client = await gw.connect(TOKEN)
    const first = await callJson<{ site: string }>(client, 'unifi_execute', {
      tool: 'unifi_list_devices',
    })
    assert.equal(first.site, 'hq')

    await sim.kill('SIGKILL')
    const down = await waitFor('the gateway to notice', async () => {
      const r = await ready(gw.url)
      return r.upstreams[0]?.connected === false ? r : undefined
    })
    assert.equal(down.status, 'unavailable')
    const meanwhile = await callJson<{ error: string }>(client, 'unifi_execute', {
      tool: 'unifi_list_devices',
    })
    assert.match(meanwhile.error, /upstream hq-network \(site hq\) is unreachable/)

    sim = await startSim('network', 'hq', [], port)
    const again = await callJson<{ site: string }>(client, 'unifi_execute', {
      tool: 'unifi_list_devices',
    })
    assert.equal(again.site, 'hq')
    const after = await ready(gw.url)
    assert.equal(after.upstreams[0]?.connected, true)
    assert.ok((after.upstreams[0]?.reconnects ?? 0) >= 1)
  })

  test('upstream:session-lost: an upstream that restarts between calls (404 for the old session) is re-initialised transparently', async (t) => {
    const port = await freePort()
    let sim = await startSim('network', 'hq', [], port)
    // Health checks far apart: the gateway can only find out from the 404 on the next call.
    const gw = await startGateway({
      auth: { tokens: [{ name: 'agent', token: TOKEN }] },
      limits: { healthCheckIntervalMs: 600_000 },
      upstreams: [httpUpstream('hq-network', 'hq', 'network', sim.url)],
    })
    t.after(async () => {
      await gw.stop()
      await sim.kill()
    })
    const client = await gw.connect(TOKEN)
    await callJson(client, 'unifi_execute', { tool: 'unifi_list_devices' })
    await sim.kill('SIGKILL')
    sim = await startSim('network', 'hq', [], port)
    const body = await callJson<{ site?: string; error?: string }>(client, 'unifi_execute', {
      tool: 'unifi_list_devices',
    })
    assert.equal(body.error, undefined)
    assert.equal(body.site, 'hq')
  })

  test('upstream:stdio-respawn: a stdio upstream whose process dies is spawned again', async (t) => {
    const gw = await startGateway({
      auth: { tokens: [{ name: 'agent', token: TOKEN }] },
      limits: { healthCheckIntervalMs: 500 },
      upstreams: [stdioSimUpstream('respawn-net', 'respawnsite', 'network')],
    })
    t.after(() => gw.stop())
    const client = await gw.connect(TOKEN)
    assert.equal(
      (await callJson<{ site: string }>(client, 'unifi_execute', { tool: 'unifi_list_devices' }))
        .site,
      'respawnsite',
    )
    execFileSync('pkill', ['-KILL', '-f', 'site respawnsite --stdio'])
    const body = await waitFor('a respawned upstream to answer', async () => {
      const r = await callJson<{ site?: string }>(client, 'unifi_execute', {
        tool: 'unifi_list_devices',
      })
      return r.site ? r : undefined
    })
    assert.equal(body.site, 'respawnsite')
  })

  test('upstream:unreachable: a dead site gets an error naming its upstream; the other site and the gateway keep working', async (t) => {
    const sim = await startSim('network', 'hq')
    const deadPort = await freePort()
    const gw = await startGateway({
      auth: { tokens: [{ name: 'agent', token: TOKEN }] },
      upstreams: [
        httpUpstream('hq-network', 'hq', 'network', sim.url),
        httpUpstream('branch-network', 'branch', 'network', `http://127.0.0.1:${deadPort}/mcp`),
      ],
    })
    t.after(async () => {
      await gw.stop()
      await sim.kill()
    })
    const client = await gw.connect(TOKEN)
    const dead = await callJson<{ error: string }>(client, 'unifi_execute', {
      tool: 'unifi_list_devices',
      site: 'branch',
    })
    assert.match(
      dead.error,
      /^Failed to execute tool: upstream branch-network \(site branch\) is unreachable: .*ECONNREFUSED/,
    )
    assert.match(dead.error, /try again shortly/)
    const alive = await callJson<{ site: string }>(client, 'unifi_execute', {
      tool: 'unifi_list_devices',
      site: 'hq',
    })
    assert.equal(alive.site, 'hq')
    const r = await ready(gw.url)
    assert.equal(r.status, 'degraded')
    const branch = r.upstreams.find((u) => u.name === 'branch-network')
    assert.equal(branch?.connected, false)
    assert.match(String(branch?.lastError), /ECONNREFUSED/)
    assert.ok(gw.logs().some((l) => l.msg === 'upstream down' && l.upstream === 'branch-network'))
  })

  test('upstream:log-relay: clients hear about an upstream going down, at the level they chose', async (t) => {
    const sim = await startSim('network', 'hq')
    const gw = await startGateway({
      auth: { tokens: [{ name: 'agent', token: TOKEN }] },
      limits: { healthCheckIntervalMs: 500 },
      upstreams: [httpUpstream('hq-network', 'hq', 'network', sim.url)],
    })
    t.after(async () => {
      await gw.stop()
      await sim.kill()
    })
    const warned = await gw.connect(TOKEN)
    const quiet = await gw.connect(TOKEN)
    const heard: { level: string; logger?: string; data?: unknown }[] = []
    const heardQuietly: unknown[] = []
    warned.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => {
      heard.push(n.params)
    })
    quiet.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => {
      heardQuietly.push(n.params)
    })
    await warned.setLoggingLevel('warning')
    await quiet.setLoggingLevel('error')
    await sim.kill('SIGKILL')
    const msg = await waitFor('a log message about the upstream', () =>
      heard.find((m) => String(m.data).includes('hq-network')),
    )
    assert.equal(msg.level, 'warning')
    assert.equal(msg.logger, 'gateway')
    assert.match(String(msg.data), /upstream hq-network disconnected/)
    assert.deepEqual(heardQuietly, [], 'a warning is below the level the other client asked for')
  })
})
