import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { describe, test } from 'node:test'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { httpUpstream, startGateway, startSim, TOKEN } from '../helpers/processes.js'
import { call, callJson, textOf, waitFor } from '../helpers/results.js'

const EVERYTHING = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
)
const everything = {
  name: 'everything',
  app: 'generic',
  transport: 'stdio',
  command: process.execPath,
  args: [EVERYTHING, 'stdio'],
}

const META = (p: string, lazy: boolean) => [
  `${p}_tool_index`,
  `${p}_execute`,
  `${p}_batch`,
  `${p}_batch_status`,
  `${p}_batch_cancel`,
  ...(lazy ? [`${p}_load_tools`] : []),
]

async function toolsListBytes(
  mode: string,
  sites: string[],
): Promise<{ names: string[]; bytes: number }> {
  const sim = await startSim('network', 'x', ['--sites', sites.join(',')])
  const gw = await startGateway({
    auth: { tokens: [{ name: 'agent', token: TOKEN }] },
    registrationMode: mode,
    upstreams: sites.map((s) => httpUpstream(`${s}-network`, s, 'network', sim.urls[s] as string)),
  })
  try {
    const client = await gw.connect(TOKEN)
    const result = await client.listTools()
    return { names: result.tools.map((t) => t.name), bytes: JSON.stringify(result).length }
  } finally {
    await gw.stop()
    await sim.kill()
  }
}

describe('registration modes', () => {
  test('modes:lazy-and-meta_only: meta-tools only, and the same size for 1 and 3 sites', async () => {
    for (const mode of ['lazy', 'meta_only']) {
      const one = await toolsListBytes(mode, ['s1'])
      const three = await toolsListBytes(mode, ['s1', 's2', 's3'])
      assert.deepEqual(one.names, META('unifi', mode === 'lazy'), mode)
      assert.equal(three.bytes, one.bytes, `${mode}: tools/list must not grow with sites`)
    }
  })

  test('modes:eager: meta-tools plus every upstream tool as <upstream>__<tool>', async () => {
    const { names } = await toolsListBytes('eager', ['s1', 's2'])
    assert.deepEqual(names.slice(0, 5), META('unifi', false))
    assert.equal(names.length, 5 + 2 * 184)
    assert.ok(names.includes('s1-network__unifi_list_clients'))
    assert.ok(names.includes('s2-network__unifi_block_client'))
    assert.ok(
      !names.some((n) => n.endsWith('__unifi_execute')),
      'upstream meta-tools are not re-exposed',
    )
  })

  test('modes:env-override: GATEWAY_TOOL_REGISTRATION_MODE wins over the file', async (t) => {
    const sim = await startSim('access', 'hq')
    const gw = await startGateway(
      {
        auth: { tokens: [{ name: 'agent', token: TOKEN }] },
        registrationMode: 'lazy',
        upstreams: [httpUpstream('hq-access', 'hq', 'access', sim.url)],
      },
      { env: { GATEWAY_TOOL_REGISTRATION_MODE: 'eager' } },
    )
    t.after(async () => {
      await gw.stop()
      await sim.kill()
    })
    const client = await gw.connect(TOKEN)
    const { tools } = await client.listTools()
    assert.equal(tools.length, 5 + 31)
    const direct = await call(client, 'hq-access__access_list_doors')
    assert.equal((direct.structuredContent as { site: string }).site, 'hq')
  })

  test('modes:load-tools: loads into this session only, notifies it, and the loaded tool runs directly', async (t) => {
    const sim = await startSim('network', 'hq')
    const gw = await startGateway({
      auth: { tokens: [{ name: 'agent', token: TOKEN }] },
      upstreams: [httpUpstream('hq-network', 'hq', 'network', sim.url)],
    })
    t.after(async () => {
      await gw.stop()
      await sim.kill()
    })
    const a = await gw.connect(TOKEN)
    const b = await gw.connect(TOKEN)
    let notified = 0
    a.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      notified++
    })
    await assert.rejects(
      call(a, 'hq-network__unifi_list_clients'),
      (err: Error & { code?: number }) => {
        assert.equal(err.code, -32602, 'not callable before it is loaded: unknown tool')
        assert.match(
          err.message,
          /^MCP error -32602: Unknown tool: hq-network__unifi_list_clients\. Load it first with unifi_load_tools/,
        )
        return true
      },
    )
    const loaded = await callJson<{ loaded: string[]; errors: unknown; message: string }>(
      a,
      'unifi_load_tools',
      {
        tools: ['unifi_list_clients', 'unifi_nope'],
      },
    )
    assert.deepEqual(loaded.loaded, ['hq-network__unifi_list_clients'])
    assert.deepEqual(loaded.errors, [{ tool: 'unifi_nope', error: 'Unknown tool' }])
    assert.equal(loaded.message, 'Loaded 1 tool(s). Client should refresh tool list.')
    await waitFor('notifications/tools/list_changed', () => (notified > 0 ? true : undefined))
    const listA = (await a.listTools()).tools.map((t) => t.name)
    const listB = (await b.listTools()).tools.map((t) => t.name)
    assert.ok(listA.includes('hq-network__unifi_list_clients'))
    assert.ok(!listB.includes('hq-network__unifi_list_clients'), 'another session does not see it')
    const direct = await call(a, 'hq-network__unifi_list_clients', { limit: 2 })
    assert.equal(direct.isError, undefined)
    assert.equal((direct.structuredContent as { count: number }).count, 2)
    const stats = await sim.stats()
    assert.equal(stats.byTool.unifi_list_clients, 1)
    assert.deepEqual(await callJson(a, 'unifi_load_tools', { tools: [] }), {
      error: 'No tools specified',
      loaded: [],
      errors: [],
    })
  })

  test('modes:generic-upstream: a generic server is exposed as <upstream>__<tool> in every mode; task-only tools are reported', async (t) => {
    for (const mode of ['lazy', 'meta_only', 'eager']) {
      const gw = await startGateway({
        auth: { tokens: [{ name: 'agent', token: TOKEN }] },
        registrationMode: mode,
        upstreams: [everything],
      })
      t.after(() => gw.stop())
      const client = await gw.connect(TOKEN)
      const names = (await client.listTools()).tools.map((x) => x.name)
      assert.ok(names.includes('everything__echo'), mode)
      assert.ok(names.includes('everything__get-sum'), mode)
      assert.ok(
        !names.some((n) => n.startsWith('unifi_')),
        'no UniFi meta-tools without a UniFi upstream',
      )
      assert.ok(!names.includes('everything__simulate-research-query'))
      const sum = await call(client, 'everything__get-sum', { a: 2, b: 5 })
      assert.match(textOf(sum), /7/)
      assert.ok(
        gw
          .logs()
          .some(
            (l) => l.msg === 'tool left out' && l.name === 'everything__simulate-research-query',
          ),
      )
    }
  })
})
