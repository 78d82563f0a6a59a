import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import {
  type Gateway,
  httpUpstream,
  type Sim,
  startGateway,
  startSim,
  TOKEN,
} from '../helpers/processes.js'
import { call, callJson, textOf, waitFor } from '../helpers/results.js'

type Index = {
  tools: { name: string; sites?: string[]; schema?: { input: Record<string, unknown> } }[]
  count: number
  categories: string[]
  filtered?: boolean
}

/** Smallest arguments a tool's input schema accepts. */
function minimalArgs(schema: Record<string, unknown>): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, { type?: string }>
  const required = (schema.required ?? []) as string[]
  const sample: Record<string, unknown> = {
    string: 'x',
    integer: 1,
    number: 1,
    boolean: false,
    array: [],
    object: {},
  }
  return Object.fromEntries(required.map((k) => [k, sample[props[k]?.type ?? 'string'] ?? 'x']))
}

describe('discovery: the index is served by the gateway and agrees with execute', () => {
  const sims: Sim[] = []
  let gw: Gateway
  let client: Client
  before(async () => {
    const [net, prot, acc, branch] = await Promise.all([
      startSim('network', 'hq'),
      startSim('protect', 'hq'),
      startSim('access', 'hq'),
      startSim('network', 'branch', [
        '--exclude-tools',
        'unifi_list_dpi_applications,unifi_list_dpi_categories',
      ]),
    ])
    sims.push(net, prot, acc, branch)
    gw = await startGateway({
      auth: { tokens: [{ name: 'agent', token: TOKEN }] },
      upstreams: [
        httpUpstream('hq-network', 'hq', 'network', net.url),
        httpUpstream('hq-protect', 'hq', 'protect', prot.url),
        httpUpstream('hq-access', 'hq', 'access', acc.url),
        httpUpstream('branch-network', 'branch', 'network', branch.url),
      ],
    })
    client = await gw.connect(TOKEN)
  })
  after(async () => {
    await gw?.stop()
    await Promise.all(sims.map((s) => s.kill()))
  })

  test('discovery:no-upstream-call: index queries never reach an upstream', async () => {
    await Promise.all(sims.map((s) => s.resetStats()))
    await callJson(client, 'unifi_tool_index', {})
    await callJson(client, 'unifi_tool_index', { category: 'clients', include_schemas: true })
    await callJson(client, 'protect_tool_index', { search: 'camera snapshot' })
    await callJson(client, 'access_tool_index', {
      name: 'access_unlock_door',
      include_schemas: 'true',
    })
    for (const s of sims)
      assert.deepEqual((await s.stats()).requests, {}, 'no request reached the upstream')
  })

  test('discovery:counts: full catalog with the gateway meta-tools, 24 network categories, clients 12', async () => {
    const all = await callJson<Index>(client, 'unifi_tool_index')
    assert.equal(all.count, 184 + 6)
    assert.equal(all.categories.length, 24)
    assert.equal(all.filtered, undefined)
    const clients = await callJson<Index>(client, 'unifi_tool_index', { category: 'clients' })
    assert.equal(clients.count, 12)
    assert.equal((await callJson<Index>(client, 'protect_tool_index')).count, 56 + 6)
    assert.equal((await callJson<Index>(client, 'access_tool_index')).count, 31 + 6)
  })

  test('discovery:sites: entries carry sites; a site whose upstream lacks tools does not list them', async () => {
    const dpi = await callJson<Index>(client, 'unifi_tool_index', { category: 'dpi' })
    assert.deepEqual(
      dpi.tools.map((t) => t.sites),
      [['hq'], ['hq']],
    )
    const clients = await callJson<Index>(client, 'unifi_tool_index', { category: 'clients' })
    assert.ok(clients.tools.every((t) => JSON.stringify(t.sites) === '["branch","hq"]'))
    const atBranch = await callJson<Index>(client, 'unifi_tool_index', {
      category: 'dpi',
      site: 'branch',
    })
    assert.equal(atBranch.count, 0)
    const exec = await callJson<{ error: string }>(client, 'unifi_execute', {
      tool: 'unifi_list_dpi_categories',
      site: 'branch',
    })
    assert.match(
      exec.error,
      /Unknown tool: unifi_list_dpi_categories on site branch .*sites that do: hq/,
    )
    // Single-site apps carry no sites.
    const doors = await callJson<Index>(client, 'access_tool_index', { search: 'door' })
    assert.ok(doors.tools.every((t) => t.sites === undefined))
  })

  test('discovery:drift: the gateway logs what an upstream lacks against its manifest', async () => {
    const line = await waitFor('a drift log line', () =>
      gw
        .logs()
        .find(
          (l) =>
            l.msg === 'upstream differs from the gateway manifest' &&
            l.upstream === 'branch-network',
        ),
    )
    assert.deepEqual(line.removed, ['unifi_list_dpi_applications', 'unifi_list_dpi_categories'])
  })

  test('discovery:arguments: unknown ones rejected like the upstream; name cannot be combined with search', async () => {
    const bad = await call(client, 'unifi_tool_index', { bogus: 1 })
    assert.equal(bad.isError, true)
    assert.equal(
      textOf(bad),
      "Invalid params for 'unifi_tool_index': unknown arguments {bogus}. Valid arguments: [category, include_schemas, name, search, site].",
    )
    const both = await call(client, 'unifi_tool_index', {
      name: 'unifi_list_clients',
      search: 'clients',
    })
    assert.equal(both.isError, true)
    const typed = await call(client, 'unifi_tool_index', { include_schemas: 'maybe' })
    assert.match(
      textOf(typed),
      /1 validation error for _tool_index_wrapperArguments\ninclude_schemas\n {2}Input should be a valid boolean/,
    )
  })

  test('discovery:index-execute-agree: every tool the index lists runs on its upstream (all three apps)', async () => {
    for (const [prefix, site] of [
      ['unifi', 'hq'],
      ['unifi', 'branch'],
      ['protect', 'hq'],
      ['access', 'hq'],
    ] as const) {
      const index = await callJson<Index>(client, `${prefix}_tool_index`, {
        include_schemas: true,
        site,
      })
      let ran = 0
      for (const tool of index.tools) {
        if (/_(tool_index|execute|batch|batch_status|batch_cancel|load_tools)$/.test(tool.name))
          continue
        const body = await callJson<{ error?: string; success?: boolean }>(
          client,
          `${prefix}_execute`,
          {
            tool: tool.name,
            site,
            arguments: minimalArgs(tool.schema?.input ?? {}),
          },
        )
        assert.equal(body.error, undefined, `${site}/${tool.name}: ${body.error}`)
        assert.equal(body.success, true, tool.name)
        ran++
      }
      assert.ok(ran > 25, `${prefix}@${site} ran ${ran}`)
    }
  })

  test('discovery:execute-meta: a meta-tool the index lists runs through execute too', async () => {
    const r = await callJson<Index>(client, 'access_execute', {
      tool: 'access_tool_index',
      arguments: { category: 'doors' },
    })
    assert.equal(r.count, 6)
  })

  test('discovery:relearn-on-list-changed: an upstream that drops tools is re-learned and the client is told', async () => {
    const seen: string[] = []
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      seen.push('tools')
    })
    const hq = sims[0] as Sim
    await hq.control({ excludeTools: ['unifi_get_speedtest_status'] })
    await waitFor('the index to drop the tool for hq', async () => {
      const r = await callJson<Index>(client, 'unifi_tool_index', {
        name: 'unifi_get_speedtest_status',
      })
      return r.tools[0]?.sites?.length === 1 ? r : undefined
    })
    await waitFor('a tools/list_changed notification', () => (seen.length > 0 ? true : undefined))
    await hq.control({ excludeTools: [] })
    await waitFor('the tool to come back', async () => {
      const r = await callJson<Index>(client, 'unifi_tool_index', {
        name: 'unifi_get_speedtest_status',
      })
      return r.tools[0]?.sites?.length === 2 ? r : undefined
    })
  })
})

describe('discovery: upstreams in every mode', () => {
  test('discovery:upstream-modes: lazy, meta_only and eager upstreams all give the full catalog and run', async (t) => {
    const sims = await Promise.all([
      startSim('network', 'lazy-site'),
      startSim('network', 'meta-site', ['--mode', 'meta_only']),
      startSim('network', 'eager-site', ['--mode', 'eager']),
    ])
    const gw = await startGateway({
      auth: { tokens: [{ name: 'agent', token: TOKEN }] },
      upstreams: sims.map((s, i) =>
        httpUpstream(
          `net-${i}`,
          ['lazy-site', 'meta-site', 'eager-site'][i] as string,
          'network',
          s.url,
        ),
      ),
    })
    t.after(async () => {
      await gw.stop()
      await Promise.all(sims.map((s) => s.kill()))
    })
    const client = await gw.connect(TOKEN)
    for (const site of ['lazy-site', 'meta-site', 'eager-site']) {
      const idx = await callJson<Index>(client, 'unifi_tool_index', { site })
      assert.equal(idx.count, 184 + 6, site)
      assert.equal(idx.categories.length, 24, site)
      const body = await callJson<{ success: boolean; site: string }>(client, 'unifi_execute', {
        tool: 'unifi_list_wlans',
        site,
      })
      assert.equal(body.site, site)
    }
    const learned = gw.logs().filter((l) => l.msg === 'learned upstream tools')
    assert.deepEqual(Object.fromEntries(learned.map((l) => [l.upstream, l.source])), {
      'net-0': 'index',
      'net-1': 'manifest_assumed',
      'net-2': 'tools_list',
    })
  })
})
