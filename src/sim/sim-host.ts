import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { Hono } from 'hono'
import { z } from 'zod'
import type { CapturedMetaTools } from '../gateway/meta/definitions.js'
import { SessionHost } from '../transport/session-host.js'
import { createSimServer } from './sim-server.js'
import type { SimState } from './sim-state.js'

/**
 * Run simulated upstreams over Streamable HTTP on loopback. One site is served at /mcp;
 * several (`--sites`, for scale tests) each at /<site>/mcp, every one its own upstream
 * with its own state. Next to each MCP endpoint:
 * - GET  …/sim/stats   calls, in-flight now and at most, cancellations, requests by method,
 *                      and which Authorization headers arrived
 * - POST …/sim/stats/reset
 * - POST …/sim/control {excludeTools?, disabledPrompts?, latencyMs?, failRate?}: change the
 *   simulated release at run time; sessions get list_changed notifications.
 */
const ControlSchema = z.strictObject({
  excludeTools: z.array(z.string()).optional(),
  disabledPrompts: z.array(z.string()).optional(),
  latencyMs: z.number().int().min(0).optional(),
  failRate: z.number().min(0).max(1).optional(),
})

export type RunningSim = {
  url: string
  urls: Record<string, string>
  port: number
  close(): Promise<void>
}

function mountSite(
  app: Hono,
  bases: string[],
  state: SimState,
  captured: CapturedMetaTools,
): SessionHost<undefined> {
  const host = new SessionHost<undefined>({
    create: () => ({ server: createSimServer(state, captured), state: undefined }),
    idleMs: 3_600_000,
    max: 10_000,
  })
  state.onToolsChanged = () => {
    for (const s of host.sessions()) s.server.sendToolListChanged().catch(() => {})
  }
  state.onPromptsChanged = () => {
    for (const s of host.sessions()) s.server.sendPromptListChanged().catch(() => {})
  }
  // Which Authorization headers reached this upstream: tests prove the gateway never
  // forwards its own clients' tokens.
  const authorizations = new Set<string>()
  for (const base of bases) {
    app.get(`${base}/sim/stats`, (c) =>
      c.json({
        app: state.opts.app,
        site: state.opts.site,
        mode: state.opts.mode,
        ...state.stats,
        sessions: host.size,
        authorizations: [...authorizations],
      }),
    )
    app.post(`${base}/sim/stats/reset`, (c) => {
      state.resetStats()
      return c.json({ ok: true })
    })
    app.post(`${base}/sim/control`, async (c) => {
      const parsed = ControlSchema.safeParse(await c.req.json().catch(() => undefined))
      if (!parsed.success) return c.json({ error: parsed.error.message }, 400)
      const v = parsed.data
      if (v.latencyMs !== undefined) state.opts.latencyMs = v.latencyMs
      if (v.failRate !== undefined) state.opts.failRate = v.failRate
      if (v.excludeTools) state.setExcluded(v.excludeTools)
      if (v.disabledPrompts) state.setDisabledPrompts(v.disabledPrompts)
      return c.json({ ok: true })
    })
    app.all(`${base}/mcp`, async (c) => {
      authorizations.add(c.req.header('authorization') ?? '(none)')
      let body: unknown
      if (c.req.method === 'POST') body = await c.req.json().catch(() => undefined)
      return host.handle(c.req.raw, 'sim', body, undefined)
    })
  }
  return host
}

export async function serveSimHttp(
  states: SimState[],
  captured: CapturedMetaTools,
  port: number,
): Promise<RunningSim> {
  const app = new Hono()
  const single = states.length === 1
  // Each site at /<site>/mcp; a lone site also at /mcp.
  const hosts = states.map((state) =>
    mountSite(app, single ? ['', `/${state.opts.site}`] : [`/${state.opts.site}`], state, captured),
  )
  const proc = states[0]?.opts.processStats
  if (proc) {
    app.get('/sim/process-stats', (c) => c.json(proc))
    app.post('/sim/process-stats/reset', (c) => {
      proc.maxInFlight = proc.inFlight
      return c.json({ ok: true })
    })
  }
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, (info: AddressInfo) => {
      const urls = Object.fromEntries(
        states.map((s) => [
          s.opts.site,
          `http://127.0.0.1:${info.port}${single ? '' : `/${s.opts.site}`}/mcp`,
        ]),
      )
      resolve({
        url: Object.values(urls)[0] as string,
        urls,
        port: info.port,
        close: async () => {
          await Promise.all(hosts.map((h) => h.close()))
          await new Promise<void>((r) => server.close(() => r()))
        },
      })
    })
  })
}

export async function serveSimStdio(
  state: SimState,
  captured: CapturedMetaTools,
  stdinClosed: Promise<void>,
): Promise<void> {
  const server = createSimServer(state, captured)
  state.onToolsChanged = () => void server.sendToolListChanged().catch(() => {})
  state.onPromptsChanged = () => void server.sendPromptListChanged().catch(() => {})
  const transport = new StdioServerTransport()
  await server.connect(transport)
  await Promise.race([
    stdinClosed,
    new Promise<void>((resolve) => {
      transport.onclose = () => resolve()
    }),
  ])
}
