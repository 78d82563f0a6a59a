import { spawn } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CLI, freePort, TOKEN } from '../test/helpers/processes.js'
import { waitFor } from '../test/helpers/results.js'
import type { Section } from './lib.js'

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`

/**
 * Load and soak check (bounded in count and time, loopback only): 16 concurrent clients run a
 * mix of index, execute and batch calls against the demo for 60 s. It fails on any error, on
 * open file descriptors left over, or on memory that keeps growing: the heap grows to its
 * working size during the first half and must stay within 25 % of it during the second.
 */
export const SOAK_BOUNDS = { secondHalfRssGrowth: 1.25, extraFds: 16 }

async function usage(pid: number): Promise<{ rss: number; fds: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return {
    rss: Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024,
    fds: (await readdir(`/proc/${pid}/fd`)).length,
  }
}

type Op = (c: Client, n: number) => Promise<string | undefined>
const text = (r: unknown) => (r as { content?: { text?: string }[] }).content?.[0]?.text ?? ''
const errorOf = (r: unknown): string | undefined => {
  if ((r as { isError?: boolean }).isError) return text(r)
  const body = JSON.parse(text(r)) as { error?: string }
  return body.error
}
const SEARCHES = [
  'block client',
  'list devices',
  'firewall policy',
  'reboot',
  'wifi radio power',
  'vpn',
]

const OPS: Op[] = [
  async (c, n) =>
    errorOf(
      await c.callTool({
        name: 'unifi_tool_index',
        arguments: { search: SEARCHES[n % SEARCHES.length] },
      }),
    ),
  async (c) =>
    errorOf(await c.callTool({ name: 'protect_tool_index', arguments: { category: 'cameras' } })),
  async (c, n) =>
    errorOf(
      await c.callTool({
        name: 'unifi_execute',
        arguments: {
          tool: 'unifi_list_clients',
          site: n % 2 ? 'hq' : 'branch',
          arguments: { limit: 5 },
        },
      }),
    ),
  async (c) =>
    errorOf(await c.callTool({ name: 'access_execute', arguments: { tool: 'access_list_doors' } })),
  async (c) => {
    const started = JSON.parse(
      text(
        await c.callTool({
          name: 'unifi_batch',
          arguments: {
            operations: [
              { tool: 'unifi_list_devices', site: '*' },
              { tool: 'unifi_list_wlans', site: 'hq' },
            ],
          },
        }),
      ),
    ) as { jobs?: { jobId: string }[]; error?: string }
    if (!started.jobs) return started.error ?? 'no jobs'
    const status = JSON.parse(
      text(
        await c.callTool({
          name: 'unifi_batch_status',
          arguments: { jobIds: started.jobs.map((j) => j.jobId), wait_ms: 20_000 },
        }),
      ),
    ) as { jobs: { status: string; error: string | null }[] }
    const bad = status.jobs.find((j) => j.status !== 'done')
    return bad ? `job ${bad.status}: ${bad.error}` : undefined
  },
]

export async function soakBench(
  durationMs = 60_000,
  clients = 16,
): Promise<{ section: Section; ok: boolean }> {
  const port = await freePort()
  const demo = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...process.env, GATEWAY_PORT: String(port), GATEWAY_TOKEN: TOKEN, GATEWAY_CONFIG: '' },
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  let out = ''
  demo.stdout?.on('data', (d) => {
    out += d
  })
  try {
    await waitFor('the demo', () => (out.includes('Token:') ? true : undefined), 30_000)
    const url = new URL(`http://127.0.0.1:${port}/mcp`)
    const connect = async () => {
      const c = new SdkClient({ name: 'soak', version: '1' })
      await c.connect(
        new StreamableHTTPClientTransport(url, {
          requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
        }),
      )
      return c
    }
    const errors: string[] = []
    let ops = 0
    const latencies: number[] = []
    const load = (ms: number, record: boolean) => {
      const deadline = Date.now() + ms
      return Promise.all(
        Array.from({ length: clients }, async (_, i) => {
          const c = await connect()
          for (let n = i; Date.now() < deadline; n++) {
            const t = performance.now()
            try {
              const problem = await (OPS[n % OPS.length] as Op)(c, n)
              if (problem) errors.push(problem)
            } catch (err) {
              errors.push(err instanceof Error ? err.message : String(err))
            }
            if (record) {
              latencies.push(performance.now() - t)
              ops++
            }
          }
          await c.close()
        }),
      )
    }
    // Warm up under the same load, so that the heap reaching its working size and lazy
    // initialisation are not counted as growth; then measure, run, settle, measure again.
    const settle = () => new Promise((r) => setTimeout(r, 6_000))
    await load(Math.min(10_000, durationMs / 6), false)
    await settle()
    const before = await usage(demo.pid as number)
    await load(durationMs / 2, true)
    await settle()
    const half = await usage(demo.pid as number)
    await load(durationMs / 2, true)
    await settle()
    const after = await usage(demo.pid as number)
    latencies.sort((a, b) => a - b)
    const rssOk = after.rss <= half.rss * SOAK_BOUNDS.secondHalfRssGrowth
    const fdsOk = after.fds <= before.fds + SOAK_BOUNDS.extraFds
    const ok = errors.length === 0 && rssOk && fdsOk
    const p = (q: number) =>
      `${(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0).toFixed(1)} ms`
    return {
      ok,
      section: {
        title: `Soak: ${clients} concurrent clients for ${Math.round(durationMs / 1000)} s against the demo (mixed index, execute, batch)`,
        columns: ['measure', 'value', 'bound'],
        rows: [
          ['operations', ops.toLocaleString('en'), ''],
          ['errors', errors.length, '0'],
          ['operation latency p50 / p99', `${p(0.5)} / ${p(0.99)}`, ''],
          [
            'gateway RSS after warm-up → half-way → end',
            `${mb(before.rss)} → ${mb(half.rss)} → ${mb(after.rss)}`,
            `end ≤ ${SOAK_BOUNDS.secondHalfRssGrowth}× half-way (${rssOk ? 'ok' : 'EXCEEDED'})`,
          ],
          [
            'gateway open file descriptors before → after',
            `${before.fds} → ${after.fds}`,
            `≤ +${SOAK_BOUNDS.extraFds} (${fdsOk ? 'ok' : 'EXCEEDED'})`,
          ],
        ],
        notes:
          errors.length > 0
            ? [`First errors: ${[...new Set(errors)].slice(0, 3).join(' | ')}`]
            : [],
      },
    }
  } finally {
    demo.kill('SIGTERM')
    await new Promise((r) => demo.once('exit', r))
  }
}
