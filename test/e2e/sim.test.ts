import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { connectStdio, type Sim, startSim } from '../helpers/processes.js'
import { call, callJson, jsonOf, textOf } from '../helpers/results.js'

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'sim-test', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  return client
}

describe('sim: behaves as the upstream reference describes', () => {
  let sim: Sim
  let client: Client
  before(async () => {
    sim = await startSim('network', 'hq')
    client = await connect(sim.url)
  })
  after(async () => {
    await client?.close()
    await sim?.kill()
  })

  test('sim:lazy-tools-list: the five meta-tools, exactly as captured from the upstream', async () => {
    const { tools } = await client.listTools()
    assert.deepEqual(
      tools.map((t) => t.name),
      [
        'unifi_tool_index',
        'unifi_execute',
        'unifi_batch',
        'unifi_batch_status',
        'unifi_load_tools',
      ],
    )
    assert.equal(tools[1]?.title, 'UniFi Network Execute Tool')
  })

  test('sim:lazy-not-directly-callable: a domain tool not yet loaded answers "Unknown tool"', async () => {
    const fresh = await startSim('network', 'fresh')
    const c = await connect(fresh.url)
    try {
      const r = await call(c, 'unifi_list_clients')
      assert.equal(r.isError, true)
      assert.equal(textOf(r), 'Unknown tool: unifi_list_clients')
    } finally {
      await c.close()
      await fresh.kill()
    }
  })

  test('sim:unknown-argument: the strict-dispatch message', async () => {
    const body = await callJson<{ error: string }>(client, 'unifi_execute', {
      tool: 'unifi_list_clients',
      arguments: { bogus: 1 },
    })
    assert.equal(
      body.error,
      "Failed to execute tool: Invalid params for 'unifi_list_clients': unknown arguments {bogus}. Valid arguments: [fields, filter_type, include_offline, limit, search].",
    )
  })

  test('sim:missing-argument: the pydantic message', async () => {
    const body = await callJson<{ error: string }>(client, 'unifi_execute', {
      tool: 'unifi_block_client',
      arguments: {},
    })
    assert.match(
      body.error,
      /^Failed to execute tool: Error executing tool unifi_block_client: 1 validation error for block_clientArguments\nmac_address\n {2}Field required \[type=missing/,
    )
  })

  test('sim:preview-without-confirm: a mutating tool previews; confirm=true executes', async () => {
    const preview = await callJson<{
      success: boolean
      requires_confirmation: boolean
      preview: unknown
      message: string
    }>(client, 'unifi_execute', {
      tool: 'unifi_rename_client',
      arguments: { mac_address: 'aa:bb:cc:00:11:22', name: 'printer' },
    })
    assert.equal(preview.success, true)
    assert.equal(preview.requires_confirmation, true)
    assert.ok(preview.preview)
    assert.match(preview.message, /Set confirm=true to execute\.$/)
    const done = await callJson<{ success: boolean; requires_confirmation?: boolean }>(
      client,
      'unifi_execute',
      {
        tool: 'unifi_rename_client',
        arguments: { mac_address: 'aa:bb:cc:00:11:22', name: 'printer', confirm: 'true' },
      },
    )
    assert.equal(done.success, true)
    assert.equal(done.requires_confirmation, undefined)
  })

  test('sim:deterministic-data: same site, seed and call → same data; another site differs', async () => {
    const a = textOf(await call(client, 'unifi_execute', { tool: 'unifi_list_clients' }))
    const b = textOf(await call(client, 'unifi_execute', { tool: 'unifi_list_clients' }))
    assert.equal(a, b)
    const other = await startSim('network', 'branch')
    const c = await connect(other.url)
    try {
      const d = textOf(await call(c, 'unifi_execute', { tool: 'unifi_list_clients' }))
      assert.notEqual(a, d)
      assert.match(d, /"hostname": "branch-/)
    } finally {
      await c.close()
      await other.kill()
    }
  })

  test('sim:lenient-coercion: stringified JSON arguments and "yes" booleans are accepted', async () => {
    const r = await callJson<{ count: number }>(client, 'unifi_execute', {
      tool: 'unifi_list_clients',
      arguments: '{"limit": 2}',
    })
    assert.equal(r.count, 2)
    const idx = await callJson<{ tools: { schema?: unknown }[] }>(client, 'unifi_tool_index', {
      category: 'dpi',
      include_schemas: 'yes',
    })
    assert.ok(idx.tools.every((t) => t.schema))
  })

  test('sim:batch-and-status: jobs in the upstream shape', async () => {
    const started = await callJson<{ jobs: { jobId: string }[]; errors: unknown; message: string }>(
      client,
      'unifi_batch',
      {
        operations: [{ tool: 'unifi_list_devices' }, { arguments: {} }, { tool: 'unifi_nope' }],
      },
    )
    assert.equal(started.jobs.length, 2)
    assert.deepEqual(started.errors, [{ index: 1, error: "Missing 'tool' field" }])
    assert.equal(
      started.message,
      'Started 2 operation(s). Use unifi_batch_status to check progress.',
    )
    const ids = started.jobs.map((j) => j.jobId)
    assert.ok(ids.every((id) => /^[0-9a-f]{16}$/.test(id)))
    let status: { jobs: { status: string; error: string | null }[] }
    do status = await callJson(client, 'unifi_batch_status', { jobIds: ids })
    while (status.jobs.some((j) => j.status === 'running'))
    assert.equal(status.jobs[0]?.status, 'done')
    assert.equal(status.jobs[1]?.status, 'error')
    assert.equal(status.jobs[1]?.error, 'Unknown tool: unifi_nope')
    assert.deepEqual(await callJson(client, 'unifi_batch_status', { jobId: 'ffffffffffffffff' }), {
      status: 'unknown',
    })
  })

  test('sim:stats: in-flight calls are counted', async () => {
    const slow = await startSim('network', 'slow', ['--latency-ms', '200'])
    const c = await connect(slow.url)
    try {
      await Promise.all(
        [0, 1, 2].map(() => call(c, 'unifi_execute', { tool: 'unifi_list_devices' })),
      )
      const stats = await slow.stats()
      assert.equal(stats.maxInFlight, 3)
      assert.equal(stats.inFlight, 0)
      assert.equal(stats.byTool.unifi_list_devices, 3)
    } finally {
      await c.close()
      await slow.kill()
    }
  })

  test('sim:fail-rate: --fail-rate 1 fails every domain call with a clear message', async () => {
    const failing = await startSim('network', 'flaky', ['--fail-rate', '1'])
    const c = await connect(failing.url)
    try {
      const body = await callJson<{ error: string }>(c, 'unifi_execute', {
        tool: 'unifi_list_devices',
      })
      assert.match(body.error, /simulated controller failure/)
    } finally {
      await c.close()
      await failing.kill()
    }
  })
})

describe('sim: modes', () => {
  test('sim:meta_only: four meta-tools; execute still works; the index is registry-backed (upstream bug kept)', async () => {
    const client = await connectStdio([
      'sim',
      '--app',
      'protect',
      '--site',
      'hq',
      '--mode',
      'meta_only',
      '--stdio',
    ])
    try {
      const { tools } = await client.listTools()
      assert.deepEqual(
        tools.map((t) => t.name),
        ['protect_tool_index', 'protect_execute', 'protect_batch', 'protect_batch_status'],
      )
      const idx = jsonOf<{ count: number; categories: string[] }>(
        await call(client, 'protect_tool_index'),
      )
      assert.equal(idx.count, 4)
      assert.deepEqual(idx.categories, [])
      const cams = await callJson<{ success: boolean }>(client, 'protect_execute', {
        tool: 'protect_list_cameras',
      })
      assert.equal(cams.success, true)
    } finally {
      await client.close()
    }
  })

  test('sim:eager: meta-tools plus every domain tool, directly callable', async () => {
    const client = await connectStdio([
      'sim',
      '--app',
      'access',
      '--site',
      'hq',
      '--mode',
      'eager',
      '--stdio',
    ])
    try {
      const { tools } = await client.listTools()
      assert.equal(tools.length, 4 + 31)
      const r = await call(client, 'access_list_doors')
      assert.equal(r.isError, undefined)
      assert.equal((r.structuredContent as { success: boolean }).success, true)
    } finally {
      await client.close()
    }
  })
})
