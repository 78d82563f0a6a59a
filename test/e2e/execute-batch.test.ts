import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js'
import {
  type Gateway,
  httpUpstream,
  OTHER_TOKEN,
  type Sim,
  startGateway,
  startSim,
  TOKEN,
} from '../helpers/processes.js'
import { callJson, waitFor } from '../helpers/results.js'

type Batch = {
  jobs: { index: number; tool: string; jobId: string; site: string }[]
  errors: { index: number; tool?: string; error: string }[] | null
  message?: string
  error?: string
}
type Status = {
  status: string
  started?: number
  completed?: number
  result?: unknown
  error?: string | null
  site?: string
  tool?: string
}
type Statuses = { jobs: (Status & { jobId: string })[] }

const tokens = {
  tokens: [
    { name: 'agent', token: TOKEN },
    { name: 'other', token: OTHER_TOKEN },
  ],
}

/** One multi-site sim process plus a gateway with one network upstream per site. */
async function setup(sites: string[], simArgs: string[], config: Record<string, unknown> = {}) {
  const sim = await startSim('network', 'x', ['--sites', sites.join(','), ...simArgs])
  const gw = await startGateway({
    auth: tokens,
    upstreams: sites.map((s) => httpUpstream(`${s}-network`, s, 'network', sim.urls[s] as string)),
    ...config,
  })
  const client = await gw.connect(TOKEN)
  return {
    sim,
    gw,
    client,
    close: async () => {
      await gw.stop()
      await sim.kill()
    },
  }
}

async function statuses(client: Client, ids: string[], waitMs = 0): Promise<Statuses> {
  return callJson<Statuses>(client, 'unifi_batch_status', {
    jobIds: ids,
    ...(waitMs ? { wait_ms: waitMs } : {}),
  })
}

describe('execute and batch', () => {
  test('exec:concurrency: per-upstream and global limits hold at the upstream; waiting jobs show queued', async (t) => {
    const env = await setup(['a', 'b', 'c'], ['--latency-ms', '150'], {
      limits: { concurrency: 4, perUpstreamConcurrency: 2 },
    })
    t.after(env.close)
    const ops = ['a', 'b', 'c'].flatMap((site) =>
      Array.from({ length: 6 }, () => ({ tool: 'unifi_list_devices', site })),
    )
    const batch = await callJson<Batch>(env.client, 'unifi_batch', { operations: ops })
    assert.equal(batch.jobs.length, 18)
    const early = await statuses(
      env.client,
      batch.jobs.map((j) => j.jobId),
    )
    assert.ok(
      early.jobs.some((j) => j.status === 'queued'),
      'some jobs wait for a slot',
    )
    assert.ok(early.jobs.filter((j) => j.status === 'running').length <= 4)
    const done = await statuses(
      env.client,
      batch.jobs.map((j) => j.jobId),
      20_000,
    )
    assert.ok(
      done.jobs.every((j) => j.status === 'done'),
      JSON.stringify(done.jobs.map((j) => j.status)),
    )
    for (const site of ['a', 'b', 'c']) {
      const s = await env.sim.stats(site)
      assert.equal(s.byTool.unifi_list_devices, 6)
      assert.ok(s.maxInFlight <= 2, `site ${site} saw ${s.maxInFlight} in flight`)
    }
    const all = await env.sim.processStats()
    assert.equal(all.maxInFlight, 4, 'the global limit is reached and never exceeded')
  })

  test('exec:fan-out: site "*" runs a read-only tool on every site; a mutating tool needs one site', async (t) => {
    const env = await setup(['a', 'b', 'c'], [])
    t.after(env.close)
    const batch = await callJson<Batch>(env.client, 'unifi_batch', {
      operations: [
        { tool: 'unifi_list_clients', site: '*', arguments: { limit: 1 } },
        { tool: 'unifi_block_client', site: '*', arguments: { mac_address: 'aa:bb:cc:dd:ee:ff' } },
        { tool: 'unifi_list_wlans', site: 'b' },
      ],
    })
    assert.deepEqual(
      batch.jobs.map((j) => [j.index, j.site]),
      [
        [0, 'a'],
        [0, 'b'],
        [0, 'c'],
        [2, 'b'],
      ],
    )
    assert.equal(batch.errors?.length, 1)
    assert.match(
      batch.errors?.[0]?.error ?? '',
      /unifi_block_client changes state, so it needs one named site/,
    )
    assert.equal(batch.message, 'Started 4 operation(s). Use unifi_batch_status to check progress.')
    const done = await statuses(
      env.client,
      batch.jobs.map((j) => j.jobId),
      10_000,
    )
    assert.deepEqual(
      done.jobs.map((j) => (j.result as { site: string }).site),
      ['a', 'b', 'c', 'b'],
    )
    assert.deepEqual(
      done.jobs.map((j) => j.site),
      ['a', 'b', 'c', 'b'],
    )
  })

  test('exec:site-killed-mid-batch: its jobs end in error naming the upstream; the others are done', async (t) => {
    const survivors = await setup(['a', 'b'], ['--latency-ms', '1500'])
    t.after(survivors.close)
    const victim = await startSim('network', 'c', ['--latency-ms', '1500'])
    t.after(() => victim.kill())
    const gw = await startGateway({
      auth: tokens,
      upstreams: [
        httpUpstream('a-network', 'a', 'network', survivors.sim.urls.a as string),
        httpUpstream('b-network', 'b', 'network', survivors.sim.urls.b as string),
        httpUpstream('c-network', 'c', 'network', victim.url),
      ],
    })
    t.after(() => gw.stop())
    const client = await gw.connect(TOKEN)
    const batch = await callJson<Batch>(client, 'unifi_batch', {
      operations: [{ tool: 'unifi_list_devices', site: '*' }],
    })
    await waitFor('the victim to be busy', async () =>
      (await victim.stats()).inFlight > 0 ? true : undefined,
    )
    await victim.kill('SIGKILL')
    const done = await statuses(
      client,
      batch.jobs.map((j) => j.jobId),
      15_000,
    )
    const bySite = Object.fromEntries(done.jobs.map((j) => [j.site, j]))
    assert.equal(bySite.a?.status, 'done')
    assert.equal(bySite.b?.status, 'done')
    assert.equal(bySite.c?.status, 'error')
    assert.match(String(bySite.c?.error), /upstream c-network/)
  })

  test('exec:timeout: a call over callTimeoutMs ends with "timed out after N ms" and is cancelled upstream', async (t) => {
    const env = await setup(['a'], ['--latency-ms', '3000'], { limits: { callTimeoutMs: 300 } })
    t.after(env.close)
    const body = await callJson<{ error: string }>(env.client, 'unifi_execute', {
      tool: 'unifi_list_devices',
    })
    assert.match(
      body.error,
      /^Failed to execute tool: upstream a-network did not answer tools\/call unifi_execute: timed out after 300 ms/,
    )
    const batch = await callJson<Batch>(env.client, 'unifi_batch', {
      operations: [{ tool: 'unifi_list_devices' }],
    })
    const [job] = (await statuses(env.client, [batch.jobs[0]?.jobId as string], 5_000)).jobs
    assert.equal(job?.status, 'error')
    assert.match(String(job?.error), /timed out after 300 ms/)
    await waitFor('the upstream to see both cancellations', async () =>
      (await env.sim.stats('a')).cancelled >= 2 ? true : undefined,
    )
  })

  test('exec:cancel: queued and running jobs are cancelled; the running request is cancelled upstream', async (t) => {
    const env = await setup(['a'], ['--latency-ms', '1500'], {
      limits: { perUpstreamConcurrency: 1 },
    })
    t.after(env.close)
    const batch = await callJson<Batch>(env.client, 'unifi_batch', {
      operations: [
        { tool: 'unifi_list_devices' },
        { tool: 'unifi_list_wlans' },
        { tool: 'unifi_list_networks' },
      ],
    })
    const [running, , queued] = batch.jobs.map((j) => j.jobId) as [string, string, string]
    await waitFor('the first job to run', async () =>
      (await statuses(env.client, [running])).jobs[0]?.status === 'running' ? true : undefined,
    )
    const cancelled = await callJson<{
      jobs: { jobId: string; status: string; cancelled: boolean }[]
    }>(env.client, 'unifi_batch_cancel', {
      jobIds: [running, queued, 'ffffffffffffffff'],
    })
    assert.deepEqual(
      cancelled.jobs.map((j) => [j.status, j.cancelled]),
      [
        ['cancelled', true],
        ['cancelled', true],
        ['unknown', false],
      ],
    )
    const final = await statuses(
      env.client,
      batch.jobs.map((j) => j.jobId),
      10_000,
    )
    assert.deepEqual(
      final.jobs.map((j) => j.status),
      ['cancelled', 'done', 'cancelled'],
    )
    const stats = await env.sim.stats('a')
    assert.equal(stats.cancelled, 1, 'the running request was cancelled upstream')
    assert.equal(
      stats.byTool.unifi_list_networks,
      undefined,
      'the queued job never reached the upstream',
    )
    const again = await callJson<{ status: string; cancelled: boolean }>(
      env.client,
      'unifi_batch_cancel',
      { jobId: running },
    )
    assert.deepEqual([again.status, again.cancelled], ['cancelled', false])
  })

  test('exec:job-isolation: a job is visible only to the token that started it', async (t) => {
    const env = await setup(['a'], ['--latency-ms', '300'])
    t.after(env.close)
    const other = await env.gw.connect(OTHER_TOKEN)
    const batch = await callJson<Batch>(env.client, 'unifi_batch', {
      operations: [{ tool: 'unifi_list_devices' }],
    })
    const id = batch.jobs[0]?.jobId as string
    assert.deepEqual(await callJson(other, 'unifi_batch_status', { jobId: id }), {
      status: 'unknown',
    })
    assert.deepEqual(await callJson(other, 'unifi_batch_cancel', { jobId: id }), {
      jobId: id,
      status: 'unknown',
      cancelled: false,
    })
    const mine = await callJson<Status>(env.client, 'unifi_batch_status', {
      jobId: id,
      wait_ms: 5_000,
    })
    assert.equal(mine.status, 'done')
    // Another session of the same token sees it.
    const again = await env.gw.connect(TOKEN)
    assert.equal(
      (await callJson<Status>(again, 'unifi_batch_status', { jobId: id })).status,
      'done',
    )
  })

  test('exec:wait_ms: one call returns finished results; the status shape is the upstream one', async (t) => {
    const env = await setup(['a'], ['--latency-ms', '200'], { limits: { maxWaitMs: 10_000 } })
    t.after(env.close)
    const batch = await callJson<Batch>(env.client, 'unifi_batch', {
      operations: [{ tool: 'unifi_list_devices' }, { tool: 'unifi_nope' }],
    })
    assert.equal(batch.jobs.length, 1)
    assert.match(batch.errors?.[0]?.error ?? '', /Unknown tool: unifi_nope/)
    const started = Date.now()
    const r = await callJson<Status>(env.client, 'unifi_batch_status', {
      jobId: batch.jobs[0]?.jobId,
      wait_ms: '30000',
    })
    assert.ok(Date.now() - started < 5_000)
    assert.deepEqual(Object.keys(r), [
      'status',
      'started',
      'result',
      'error',
      'completed',
      'tool',
      'site',
    ])
    assert.equal(r.status, 'done')
    assert.ok((r.completed ?? 0) >= (r.started ?? 0))
    assert.ok(Math.abs((r.started ?? 0) - Date.now() / 1000) < 60, 'epoch seconds')
    assert.deepEqual(await callJson(env.client, 'unifi_batch_status', {}), {
      error: 'Provide jobId or jobIds parameter',
    })
  })

  test('exec:job-errors: a raised inner error is the job error without the execute prefix', async (t) => {
    const env = await setup(['a'], [])
    t.after(env.close)
    const batch = await callJson<Batch>(env.client, 'unifi_batch', {
      operations: [{ tool: 'unifi_list_clients', arguments: { bogus: true } }],
    })
    const r = await callJson<Status>(env.client, 'unifi_batch_status', {
      jobId: batch.jobs[0]?.jobId,
      wait_ms: 5_000,
    })
    assert.equal(r.status, 'error')
    assert.equal(
      r.error,
      "Invalid params for 'unifi_list_clients': unknown arguments {bogus}. Valid arguments: [fields, filter_type, include_offline, limit, search].",
    )
  })

  test('exec:limits-refuse-whole: maxBatchOperations + 1 and an over-full queue start nothing', async (t) => {
    const env = await setup(['a', 'b'], ['--latency-ms', '500'], {
      limits: { maxBatchOperations: 5, maxQueuedJobs: 6 },
    })
    t.after(env.close)
    const six = Array.from({ length: 6 }, () => ({ tool: 'unifi_list_devices', site: 'a' }))
    const tooMany = await callJson<Batch>(env.client, 'unifi_batch', { operations: six })
    assert.match(
      tooMany.error ?? '',
      /Too many operations: 6 \(limits.maxBatchOperations is 5\); nothing was started/,
    )
    assert.deepEqual(tooMany.jobs, [])
    const fan = await callJson<Batch>(env.client, 'unifi_batch', {
      operations: Array.from({ length: 3 }, () => ({ tool: 'unifi_list_devices', site: '*' })),
    })
    assert.match(fan.error ?? '', /fans out to 6 jobs/)
    const first = await callJson<Batch>(env.client, 'unifi_batch', { operations: six.slice(0, 5) })
    assert.equal(first.jobs.length, 5)
    const full = await callJson<Batch>(env.client, 'unifi_batch', { operations: six.slice(0, 2) })
    assert.match(full.error ?? '', /can take 1 more jobs right now .* needs 2; nothing was started/)
    await statuses(
      env.client,
      first.jobs.map((j) => j.jobId),
      10_000,
    )
    assert.equal(
      (await env.sim.stats('a')).byTool.unifi_list_devices,
      5,
      'only the accepted batch reached the upstream',
    )
    assert.deepEqual(await callJson(env.client, 'unifi_batch', { operations: [] }), {
      error: 'No operations specified',
      jobs: [],
    })
  })

  test('exec:read-only: mutating tools are refused before anything is sent; confirm otherwise passes through', async (t) => {
    const sims = await Promise.all([startSim('network', 'ro'), startSim('network', 'rw')])
    const gw: Gateway = await startGateway({
      auth: tokens,
      readOnly: true,
      upstreams: [
        httpUpstream('ro-network', 'ro', 'network', (sims[0] as Sim).url),
        httpUpstream('rw-network', 'rw', 'network', (sims[1] as Sim).url, { readOnly: false }),
      ],
    })
    t.after(async () => {
      await gw.stop()
      await Promise.all(sims.map((s) => s.kill()))
    })
    const client = await gw.connect(TOKEN)
    const refused = await callJson<{ error: string }>(client, 'unifi_execute', {
      tool: 'unifi_block_client',
      site: 'ro',
      arguments: { mac_address: 'aa:bb:cc:dd:ee:ff', confirm: true },
    })
    assert.match(
      refused.error,
      /unifi_block_client changes state on site ro, and the gateway is read-only .*nothing was sent upstream/,
    )
    assert.equal(
      (await (sims[0] as Sim).stats()).byTool.unifi_block_client,
      undefined,
      'nothing reached the upstream',
    )
    const read = await callJson<{ success: boolean }>(client, 'unifi_execute', {
      tool: 'unifi_list_clients',
      site: 'ro',
    })
    assert.equal(read.success, true)
    const batch = await callJson<Batch>(client, 'unifi_batch', {
      operations: [{ tool: 'unifi_forget_client', site: 'ro', arguments: { mac_address: 'x' } }],
    })
    assert.match(batch.errors?.[0]?.error ?? '', /read-only/)
    const allowed = await callJson<{ success: boolean; requires_confirmation?: boolean }>(
      client,
      'unifi_execute',
      {
        tool: 'unifi_block_client',
        site: 'rw',
        arguments: { mac_address: 'aa:bb:cc:dd:ee:ff', confirm: true },
      },
    )
    assert.deepEqual([allowed.success, allowed.requires_confirmation], [true, undefined])
    assert.ok(
      gw
        .logs()
        .some(
          (l) => l.msg === 'audit' && l.what === 'unifi_block_client' && l.outcome === 'refused',
        ),
    )
    assert.ok(
      gw
        .logs()
        .some(
          (l) =>
            l.msg === 'audit' &&
            l.what === 'unifi_block_client' &&
            l.outcome === 'ok' &&
            l.who === 'agent',
        ),
    )
  })

  test('exec:progress-and-cancel: progress reaches the caller; a client that cancels cancels the upstream call', async (t) => {
    const env = await setup(['a'], ['--latency-ms', '800'])
    t.after(env.close)
    const progress: number[] = []
    await env.client.callTool(
      { name: 'unifi_execute', arguments: { tool: 'unifi_list_devices' } },
      CallToolResultSchema,
      {
        onprogress: (p) => progress.push(p.progress),
      },
    )
    assert.deepEqual(progress, [1, 2, 3, 4])
    const ac = new AbortController()
    const pending = env.client.callTool(
      { name: 'unifi_execute', arguments: { tool: 'unifi_list_wlans' } },
      CallToolResultSchema,
      { signal: ac.signal },
    )
    await waitFor('the call to reach the upstream', async () =>
      (await env.sim.stats('a')).inFlight > 0 ? true : undefined,
    )
    ac.abort('user pressed stop')
    await assert.rejects(pending)
    await waitFor('the upstream to see the cancellation', async () =>
      (await env.sim.stats('a')).cancelled === 1 ? true : undefined,
    )
  })
})
