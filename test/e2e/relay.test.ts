import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  connectStdio,
  type Gateway,
  httpUpstream,
  type Sim,
  startGateway,
  startSim,
  stdioSimUpstream,
  TOKEN,
} from '../helpers/processes.js'
import { call, callJson, jsonOf, textOf } from '../helpers/results.js'

describe('relay: SDK client → gateway (Streamable HTTP) → simulated upstreams', () => {
  let sim: Sim
  let gw: Gateway
  let client: Client
  let direct: Client

  before(async () => {
    sim = await startSim('network', 'hq', ['--seed', '7'])
    gw = await startGateway({
      auth: { tokens: [{ name: 'agent', token: TOKEN }] },
      upstreams: [
        httpUpstream('hq-network', 'hq', 'network', sim.url, {
          bearer_token: 'upstream-secret-for-hq-0001',
        }),
        stdioSimUpstream('branch-network', 'branch', 'network', ['--seed', '7']),
      ],
    })
    client = await gw.connect(TOKEN)
    direct = new SdkClient({ name: 'direct', version: '1' })
    await direct.connect(new StreamableHTTPClientTransport(new URL(sim.url)))
  })
  after(async () => {
    await direct?.close()
    await gw?.stop()
    await sim?.kill()
  })

  test('relay:http-upstream: unifi_execute on site hq answers exactly what the sim answers directly', async () => {
    const args = { tool: 'unifi_list_clients', arguments: { limit: 3 } }
    const viaGateway = await call(client, 'unifi_execute', { ...args, site: 'hq' })
    const fromSim = await call(direct, 'unifi_execute', args)
    assert.equal(viaGateway.isError, false)
    assert.equal(textOf(viaGateway), textOf(fromSim))
    const body = jsonOf<{ site: string; clients: { mac: string; ip: string; hostname: string }[] }>(
      viaGateway,
    )
    assert.equal(body.site, 'hq')
    assert.equal(body.clients.length, 3)
    for (const c of body.clients) {
      assert.match(c.mac, /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/)
      assert.match(c.ip, /^10\.\d+\.\d+\.\d+$/)
      assert.match(c.hostname, /^hq-/)
    }
  })

  test('relay:stdio-upstream: unifi_execute on site branch reaches the stdio sim', async () => {
    const body = await callJson<{ site: string; clients: { hostname: string }[] }>(
      client,
      'unifi_execute',
      {
        tool: 'unifi_list_clients',
        site: 'branch',
        arguments: { limit: 2 },
      },
    )
    assert.equal(body.site, 'branch')
    assert.ok(body.clients.every((c) => c.hostname.startsWith('branch-')))
  })

  test('relay:site-required: with two sites and no site, the error lists both', async () => {
    const body = await callJson<{ error: string }>(client, 'unifi_execute', {
      tool: 'unifi_list_clients',
    })
    assert.match(body.error, /^Failed to execute tool: site is required/)
    assert.match(body.error, /branch, hq/)
  })

  test('relay:unknown-site: a site without a network upstream is named, with the real ones', async () => {
    const body = await callJson<{ error: string }>(client, 'unifi_execute', {
      tool: 'unifi_list_clients',
      site: 'paris',
    })
    assert.match(body.error, /site "paris" has no UniFi Network upstream.*sites: branch, hq/)
  })

  test('relay:upstream-errors: inner argument errors come back in the upstream shape, once prefixed', async () => {
    const viaGateway = await call(client, 'unifi_execute', {
      tool: 'unifi_list_clients',
      site: 'hq',
      arguments: { bogus: 1 },
    })
    const fromSim = await call(direct, 'unifi_execute', {
      tool: 'unifi_list_clients',
      arguments: { bogus: 1 },
    })
    assert.equal(textOf(viaGateway), textOf(fromSim))
    const error = jsonOf<{ error: string }>(viaGateway).error
    assert.equal(
      error,
      "Failed to execute tool: Invalid params for 'unifi_list_clients': unknown arguments {bogus}. Valid arguments: [fields, filter_type, include_offline, limit, search].",
    )
    assert.equal(error.split('Failed to execute tool:').length, 2, 'no doubled prefix')
  })

  test('relay:confirm-gate: a mutating tool without confirm returns the preview; confirm passes through', async () => {
    const preview = await callJson<{ requires_confirmation: boolean; message: string }>(
      client,
      'unifi_execute',
      {
        tool: 'unifi_block_client',
        site: 'hq',
        arguments: { mac_address: 'aa:bb:cc:dd:ee:01' },
      },
    )
    assert.equal(preview.requires_confirmation, true)
    assert.match(preview.message, /Set confirm=true to execute\./)
    const done = await callJson<{ success: boolean; requires_confirmation?: boolean }>(
      client,
      'unifi_execute',
      {
        tool: 'unifi_block_client',
        site: 'hq',
        arguments: { mac_address: 'aa:bb:cc:dd:ee:01', confirm: true },
      },
    )
    assert.equal(done.success, true)
    assert.equal(done.requires_confirmation, undefined)
  })

  test('relay:lazy-upstream: domain tools are not in the gateway tools/list, yet execute reaches them', async () => {
    const { tools } = await client.listTools()
    const names = tools.map((t) => t.name)
    assert.ok(names.includes('unifi_execute'))
    assert.ok(!names.some((n) => n.includes('unifi_list_clients')))
    const viaSim = await direct.listTools()
    assert.ok(
      !viaSim.tools.some((t) => t.name === 'unifi_get_system_info'),
      'the lazy sim does not list its domain tools',
    )
    const body = await callJson<{ success: boolean }>(client, 'unifi_execute', {
      tool: 'unifi_get_system_info',
      site: 'hq',
    })
    assert.equal(body.success, true)
  })

  test('relay:no-token-passthrough: the upstream sees its own credential, never the client token', async () => {
    const stats = await sim.stats()
    assert.ok(stats.authorizations.includes('Bearer upstream-secret-for-hq-0001'))
    assert.ok(!stats.authorizations.some((a) => a.includes(TOKEN)))
  })
})

describe('relay: serve --stdio', () => {
  test('relay:serve-stdio: a desktop client over stdio reaches an HTTP sim and a stdio sim', async (t) => {
    const sim = await startSim('network', 'hq')
    t.after(() => sim.kill())
    const { writeFile } = await import('node:fs/promises')
    const { tempDir } = await import('../helpers/processes.js')
    const dir = await tempDir()
    const file = `${dir}/gateway.json`
    await writeFile(
      file,
      JSON.stringify({
        upstreams: [
          httpUpstream('hq-network', 'hq', 'network', sim.url),
          stdioSimUpstream('branch-network', 'branch', 'network'),
        ],
      }),
    )
    const client = await connectStdio(['serve', '--stdio', '--config', file])
    t.after(() => client.close())
    const hq = await callJson<{ site: string }>(client, 'unifi_execute', {
      tool: 'unifi_list_devices',
      site: 'hq',
    })
    const branch = await callJson<{ site: string }>(client, 'unifi_execute', {
      tool: 'unifi_list_devices',
      site: 'branch',
    })
    assert.equal(hq.site, 'hq')
    assert.equal(branch.site, 'branch')
  })
})
