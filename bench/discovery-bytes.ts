import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { httpUpstream, startGateway, startSim, TOKEN } from '../test/helpers/processes.js'
import { waitFor } from '../test/helpers/results.js'
import { bytesOf, kb, ratio, type Section } from './lib.js'

/**
 * What discovery costs a client in bytes (issue: "bytes of the initial tools/list per mode
 * for 1, 10 and 100 sites; bytes of the default index per app; the bytes a client spends to
 * find and call one tool in lazy mode against eager mode"). Everything is measured on real
 * processes in one run: the gateway in front of simulators, and the same simulators directly.
 */
async function allTools(client: Client): Promise<{ count: number; bytes: number }> {
  let cursor: string | undefined
  let count = 0
  let bytes = 0
  do {
    const page = await client.listTools(cursor ? { cursor } : {})
    count += page.tools.length
    bytes += bytesOf(page)
    cursor = page.nextCursor
  } while (cursor)
  return { count, bytes }
}

async function direct(url: string): Promise<Client> {
  const c = new SdkClient({ name: 'bench', version: '1' })
  await c.connect(new StreamableHTTPClientTransport(new URL(url)))
  return c
}

type Call = { name: string; arguments: Record<string, unknown> }
async function exchange(client: Client, call: Call): Promise<number> {
  const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: call }
  const result = await client.callTool(call)
  return bytesOf(request) + bytesOf({ jsonrpc: '2.0', id: 1, result })
}

export async function discoveryBench(sitesList = [1, 10, 100]): Promise<Section[]> {
  const listRows: (string | number)[][] = []
  const findRows: (string | number)[][] = []
  for (const n of sitesList) {
    const sites = Array.from({ length: n }, (_, i) => `s${String(i + 1).padStart(3, '0')}`)
    const sim = await startSim('network', 'x', ['--sites', sites.join(',')])
    const url = (site: string) => sim.urls[site] as string
    const sizes: Record<string, { count: number; bytes: number }> = {}
    const find: Record<string, number> = {}
    for (const mode of ['lazy', 'meta_only', 'eager']) {
      const gw = await startGateway({
        auth: { tokens: [{ name: 'bench', token: TOKEN }] },
        registrationMode: mode,
        upstreams: sites.map((s) => httpUpstream(`${s}-network`, s, 'network', url(s))),
      })
      try {
        const client = await gw.connect(TOKEN)
        const expected = mode === 'eager' ? 5 + 184 * n : mode === 'lazy' ? 6 : 5
        sizes[mode] = await waitFor(
          `${mode} tools/list with ${n} sites`,
          async () => {
            const r = await allTools(client)
            return r.count === expected ? r : undefined
          },
          120_000,
          250,
        )
        // Find and call one tool: the user wants the clients of site 1.
        const site = sites[0] as string
        if (mode === 'lazy') {
          const search = await exchange(client, {
            name: 'unifi_tool_index',
            arguments: { search: 'list connected clients' },
          })
          const run = await exchange(client, {
            name: 'unifi_execute',
            arguments: { tool: 'unifi_list_clients', site, arguments: { limit: 5 } },
          })
          find.lazy = (sizes.lazy?.bytes ?? 0) + search + run
        }
        if (mode === 'eager') {
          const run = await exchange(client, {
            name: `${site}-network__unifi_list_clients`,
            arguments: { limit: 5 },
          })
          find.eager = (sizes.eager?.bytes ?? 0) + run
        }
      } finally {
        await gw.stop()
      }
    }
    listRows.push([
      n,
      kb(sizes.lazy?.bytes ?? 0),
      kb(sizes.meta_only?.bytes ?? 0),
      `${kb(sizes.eager?.bytes ?? 0)} (${sizes.eager?.count} tools)`,
      ratio(sizes.eager?.bytes ?? 0, sizes.lazy?.bytes ?? 1),
    ])
    findRows.push([
      n,
      kb(find.lazy ?? 0),
      kb(find.eager ?? 0),
      ratio(find.eager ?? 0, find.lazy ?? 1),
    ])
    await sim.kill()
  }

  // The same upstream called directly: its own tools/list in lazy and eager mode.
  const upstreamRows: (string | number)[][] = []
  const indexRows: (string | number)[][] = []
  for (const app of ['network', 'protect', 'access'] as const) {
    const prefix = { network: 'unifi', protect: 'protect', access: 'access' }[app]
    const [lazy, eager] = await Promise.all([
      startSim(app, 'hq'),
      startSim(app, 'hq', ['--mode', 'eager']),
    ])
    const gw = await startGateway({
      auth: { tokens: [{ name: 'bench', token: TOKEN }] },
      upstreams: [httpUpstream(`hq-${app}`, 'hq', app, lazy.url)],
    })
    try {
      const [viaGateway, lazyDirect, eagerDirect] = await Promise.all([
        gw.connect(TOKEN),
        direct(lazy.url),
        direct(eager.url),
      ])
      const gatewayIndex = bytesOf(
        (await viaGateway.callTool({ name: `${prefix}_tool_index`, arguments: {} })).content,
      )
      const upstreamIndex = bytesOf(
        (await lazyDirect.callTool({ name: `${prefix}_tool_index`, arguments: {} })).content,
      )
      const schemas = bytesOf(
        (
          await viaGateway.callTool({
            name: `${prefix}_tool_index`,
            arguments: { include_schemas: true },
          })
        ).content,
      )
      indexRows.push([
        app,
        kb(gatewayIndex),
        kb(upstreamIndex),
        ratio(gatewayIndex, upstreamIndex),
        kb(schemas),
      ])
      upstreamRows.push([
        app,
        kb((await allTools(lazyDirect)).bytes),
        kb((await allTools(eagerDirect)).bytes),
      ])
      await Promise.all([lazyDirect.close(), eagerDirect.close()])
    } finally {
      await gw.stop()
      await Promise.all([lazy.kill(), eager.kill()])
    }
  }

  return [
    {
      title: 'Initial tools/list through the gateway (network upstreams, one per site)',
      columns: ['sites', 'lazy', 'meta_only', 'eager', 'eager ÷ lazy'],
      rows: listRows,
      notes: [
        'lazy and meta_only stay the same size whatever the number of sites; eager grows with every site.',
      ],
    },
    {
      title: 'The upstream called directly: its own tools/list',
      columns: ['app', 'lazy (5 meta-tools)', 'eager (all tools)'],
      rows: upstreamRows,
    },
    {
      title: 'Default index (`p_tool_index {}`), gateway against the upstream directly',
      columns: ['app', 'gateway', 'upstream', 'gateway ÷ upstream', 'gateway, include_schemas'],
      rows: indexRows,
      notes: [
        'The gateway lists one more meta-tool (`*_batch_cancel`); otherwise the entries are the same.',
      ],
    },
    {
      title: 'Bytes to find and call one tool (initial tools/list + search + call)',
      columns: [
        'sites',
        'lazy: list + tool_index search + execute',
        'eager: list + direct call',
        'eager ÷ lazy',
      ],
      rows: findRows,
    },
  ]
}
