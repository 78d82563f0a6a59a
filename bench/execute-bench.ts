import { readFile } from 'node:fs/promises'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  type Gateway,
  httpUpstream,
  startGateway,
  startSim,
  TOKEN,
} from '../test/helpers/processes.js'
import { kb, ms, percentile, ratio, type Section } from './lib.js'

/**
 * The gateway's cost and its promise, measured against the same simulator called directly
 * in the same run: p_execute latency and throughput, a 200-operation batch over four sites
 * with 50 ms upstream latency, and the gateway's RSS over 100,000 jobs.
 */
async function direct(url: string): Promise<Client> {
  const c = new SdkClient({ name: 'bench', version: '1' })
  await c.connect(new StreamableHTTPClientTransport(new URL(url)))
  return c
}

const CALL = { name: 'unifi_execute', arguments: { tool: 'unifi_get_system_info' } }

async function latencies(
  client: Client,
  n: number,
  args: Record<string, unknown>,
): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    await client.callTool({ name: CALL.name, arguments: { ...CALL.arguments, ...args } })
    out.push(performance.now() - t)
  }
  return out.sort((a, b) => a - b)
}

async function throughput(
  clients: Client[],
  perClient: number,
  args: Record<string, unknown>,
): Promise<number> {
  const t = performance.now()
  await Promise.all(
    clients.map(async (c) => {
      for (let i = 0; i < perClient; i++)
        await c.callTool({ name: CALL.name, arguments: { ...CALL.arguments, ...args } })
    }),
  )
  return (clients.length * perClient) / ((performance.now() - t) / 1000)
}

async function overhead(): Promise<Section> {
  const sim = await startSim('network', 'hq')
  // Limits as wide as the load so that this measures overhead, not queueing.
  const gw = await startGateway({
    auth: { tokens: [{ name: 'bench', token: TOKEN }] },
    limits: { concurrency: 64, perUpstreamConcurrency: 64 },
    upstreams: [httpUpstream('hq-network', 'hq', 'network', sim.url)],
  })
  try {
    const viaGw = await gw.connect(TOKEN)
    const viaSim = await direct(sim.url)
    await latencies(viaGw, 300, {}) // warm-up both paths
    await latencies(viaSim, 300, {})
    // Alternate blocks so that drift (CPU frequency, the other processes) hits both paths alike.
    const g: number[] = []
    const d: number[] = []
    for (let round = 0; round < 10; round++) {
      d.push(...(await latencies(viaSim, 100, {})))
      g.push(...(await latencies(viaGw, 100, {})))
    }
    g.sort((a, b) => a - b)
    d.sort((a, b) => a - b)
    const gwClients = await Promise.all(Array.from({ length: 16 }, () => gw.connect(TOKEN)))
    const simClients = await Promise.all(Array.from({ length: 16 }, () => direct(sim.url)))
    const t1d = await throughput([viaSim], 1_000, {})
    const t1g = await throughput([viaGw], 1_000, {})
    const t16d = await throughput(simClients, 150, {})
    const t16g = await throughput(gwClients, 150, {})
    await Promise.all([viaSim, ...simClients].map((c) => c.close()))
    return {
      title: '`unifi_execute` through the gateway against the same simulator called directly',
      columns: ['measure', 'direct', 'gateway', 'gateway ÷ direct'],
      rows: [
        [
          'p50 latency (1 client, 1,000 calls)',
          ms(percentile(d, 50)),
          ms(percentile(g, 50)),
          ratio(percentile(g, 50), percentile(d, 50)),
        ],
        [
          'p99 latency (1 client, 1,000 calls)',
          ms(percentile(d, 99)),
          ms(percentile(g, 99)),
          ratio(percentile(g, 99), percentile(d, 99)),
        ],
        ['throughput, 1 client', `${t1d.toFixed(0)}/s`, `${t1g.toFixed(0)}/s`, ratio(t1g, t1d)],
        [
          'throughput, 16 concurrent clients',
          `${t16d.toFixed(0)}/s`,
          `${t16g.toFixed(0)}/s`,
          ratio(t16g, t16d),
        ],
      ],
      notes: [
        "Both paths are real MCP over Streamable HTTP on loopback; the gateway adds one hop (client → gateway → sim). The simulator answers at once (no --latency-ms), so the ratios show the gateway's own cost at its most visible; against a real controller (tens of ms per call) it is a small fraction.",
      ],
    }
  } finally {
    await gw.stop()
    await sim.kill()
  }
}

async function waitAll(client: Client, prefix: string, ids: string[]): Promise<void> {
  for (;;) {
    const r = await client.callTool({
      name: `${prefix}_batch_status`,
      arguments: { jobIds: ids, wait_ms: 30_000 },
    })
    const body = JSON.parse((r.content as { text: string }[])[0]?.text ?? '{}') as {
      jobs: { status: string }[]
    }
    if (body.jobs.every((j) => !['queued', 'running'].includes(j.status))) return
  }
}

async function batchFanOut(): Promise<Section> {
  const sites = ['s1', 's2', 's3', 's4']
  const sim = await startSim('network', 'x', ['--sites', sites.join(','), '--latency-ms', '50'])
  const gw = await startGateway({
    auth: { tokens: [{ name: 'bench', token: TOKEN }] },
    limits: { concurrency: 16, perUpstreamConcurrency: 4 },
    upstreams: sites.map((s) => httpUpstream(`${s}-network`, s, 'network', sim.urls[s] as string)),
  })
  try {
    const client = await gw.connect(TOKEN)
    const operations = sites.flatMap((site) =>
      Array.from({ length: 50 }, () => ({ tool: 'unifi_list_devices', site })),
    )
    await Promise.all(sites.map((s) => sim.resetStats(s)))
    const t = performance.now()
    const r = await client.callTool({ name: 'unifi_batch', arguments: { operations } })
    const started = JSON.parse((r.content as { text: string }[])[0]?.text ?? '{}') as {
      jobs: { jobId: string }[]
    }
    await waitAll(
      client,
      'unifi',
      started.jobs.map((j) => j.jobId),
    )
    const wall = performance.now() - t
    const maxes = await Promise.all(sites.map(async (s) => (await sim.stats(s)).maxInFlight))
    // The upstream's own batch on one site, for contrast: everything at once.
    const alone = await direct(sim.urls.s1 as string)
    await sim.resetStats('s1')
    const t2 = performance.now()
    const own = await alone.callTool({
      name: 'unifi_batch',
      arguments: { operations: operations.slice(0, 50).map(({ tool }) => ({ tool })) },
    })
    const ownJobs = JSON.parse((own.content as { text: string }[])[0]?.text ?? '{}') as {
      jobs: { jobId: string }[]
    }
    for (;;) {
      const s = await alone.callTool({
        name: 'unifi_batch_status',
        arguments: { jobIds: ownJobs.jobs.map((j) => j.jobId) },
      })
      const body = JSON.parse((s.content as { text: string }[])[0]?.text ?? '{}') as {
        jobs: { status: string }[]
      }
      if (body.jobs.every((j) => j.status !== 'running')) break
      await new Promise((res) => setTimeout(res, 10))
    }
    const ownWall = performance.now() - t2
    const ownMax = (await sim.stats('s1')).maxInFlight
    await alone.close()
    const ideal = (50 * 50) / 4
    return {
      title:
        'A batch of 200 operations over 4 sites (50 ms per upstream call, perUpstreamConcurrency 4)',
      columns: ['measure', 'value'],
      rows: [
        ['wall time, batch call to last job done', ms(wall)],
        ['ideal (50 ops × 50 ms ÷ 4 per site, sites in parallel)', ms(ideal)],
        ['wall ÷ ideal', ratio(wall, ideal)],
        ['largest in-flight count each sim saw', maxes.join(', ')],
        [
          "upstream's own unifi_batch, 50 ops on one site: largest in-flight",
          `${ownMax} (wall ${ms(ownWall)})`,
        ],
      ],
      notes: [
        "The gateway never lets a site see more than 4 calls at once; the upstream's own batch starts all 50 together.",
      ],
    }
  } finally {
    await gw.stop()
    await sim.kill()
  }
}

async function rssOf(gw: Gateway): Promise<number> {
  const status = await readFile(`/proc/${gw.child.pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024
}

async function jobsMemory(total = 100_000): Promise<Section> {
  const sim = await startSim('network', 'hq')
  const gw = await startGateway({
    auth: { tokens: [{ name: 'bench', token: TOKEN }] },
    limits: {
      concurrency: 16,
      perUpstreamConcurrency: 16,
      maxBatchOperations: 200,
      maxQueuedJobs: 1_000,
      maxRetainedJobs: 1_000,
    },
    upstreams: [httpUpstream('hq-network', 'hq', 'network', sim.url)],
  })
  try {
    const client = await gw.connect(TOKEN)
    const operations = Array.from({ length: 200 }, () => ({ tool: 'unifi_get_system_info' }))
    const runBatches = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const r = await client.callTool({ name: 'unifi_batch', arguments: { operations } })
        const body = JSON.parse((r.content as { text: string }[])[0]?.text ?? '{}') as {
          jobs: { jobId: string }[]
        }
        await waitAll(
          client,
          'unifi',
          body.jobs.map((j) => j.jobId),
        )
      }
    }
    await runBatches(10) // warm-up: 2,000 jobs
    const before = await rssOf(gw)
    const t = performance.now()
    await runBatches(total / 200)
    const seconds = (performance.now() - t) / 1000
    const after = await rssOf(gw)
    return {
      title: `Gateway memory over ${total.toLocaleString('en')} jobs (maxRetainedJobs 1,000)`,
      columns: ['measure', 'value'],
      rows: [
        ['RSS after a 2,000-job warm-up', kb(before)],
        [`RSS after ${total.toLocaleString('en')} more jobs`, kb(after)],
        ['after ÷ before', ratio(after, before)],
        [
          'jobs per second (batches of 200, one site, no upstream latency)',
          (total / seconds).toFixed(0),
        ],
      ],
      notes: [
        'Finished jobs are kept in an LRU cache (at most maxRetainedJobs, for jobRetentionMs); running jobs are never evicted.',
      ],
    }
  } finally {
    await gw.stop()
    await sim.kill()
  }
}

export async function executeBench(): Promise<Section[]> {
  return [await overhead(), await batchFanOut(), await jobsMemory()]
}
