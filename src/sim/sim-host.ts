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
 * Run a simulated upstream over Streamable HTTP on loopback. Besides /mcp it serves:
 * - GET  /sim/stats   calls, in-flight now and at most, cancellations, requests by method
 * - POST /sim/stats/reset
 * - POST /sim/control {excludeTools?, disabledPrompts?, latencyMs?, failRate?}: change the
 *   simulated release at run time; sessions get list_changed notifications.
 */
const ControlSchema = z.strictObject({
  excludeTools: z.array(z.string()).optional(),
  disabledPrompts: z.array(z.string()).optional(),
  latencyMs: z.number().int().min(0).optional(),
  failRate: z.number().min(0).max(1).optional(),
})

export type RunningSim = { url: string; port: number; close(): Promise<void> }

export async function serveSimHttp(
  state: SimState,
  captured: CapturedMetaTools,
  port: number,
): Promise<RunningSim> {
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
  const app = new Hono()
  // Which Authorization headers reached this upstream: tests prove the gateway never
  // forwards its own clients' tokens.
  const authorizations = new Set<string>()
  app.use('/mcp', async (c, next) => {
    authorizations.add(c.req.header('authorization') ?? '(none)')
    await next()
  })
  app.get('/sim/stats', (c) =>
    c.json({
      app: state.opts.app,
      site: state.opts.site,
      mode: state.opts.mode,
      ...state.stats,
      sessions: host.size,
      authorizations: [...authorizations],
    }),
  )
  app.post('/sim/stats/reset', (c) => {
    state.resetStats()
    return c.json({ ok: true })
  })
  app.post('/sim/control', async (c) => {
    const parsed = ControlSchema.safeParse(await c.req.json().catch(() => undefined))
    if (!parsed.success) return c.json({ error: parsed.error.message }, 400)
    const v = parsed.data
    if (v.latencyMs !== undefined) state.opts.latencyMs = v.latencyMs
    if (v.failRate !== undefined) state.opts.failRate = v.failRate
    if (v.excludeTools) state.setExcluded(v.excludeTools)
    if (v.disabledPrompts) state.setDisabledPrompts(v.disabledPrompts)
    return c.json({ ok: true })
  })
  app.all('/mcp', async (c) => {
    let body: unknown
    if (c.req.method === 'POST') body = await c.req.json().catch(() => undefined)
    return host.handle(c.req.raw, 'sim', body, undefined)
  })
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, (info: AddressInfo) => {
      const url = `http://127.0.0.1:${info.port}/mcp`
      resolve({
        url,
        port: info.port,
        close: async () => {
          await host.close()
          await new Promise<void>((r) => server.close(() => r()))
        },
      })
    })
  })
}

export async function serveSimStdio(state: SimState, captured: CapturedMetaTools): Promise<void> {
  const server = createSimServer(state, captured)
  state.onToolsChanged = () => void server.sendToolListChanged().catch(() => {})
  state.onPromptsChanged = () => void server.sendPromptListChanged().catch(() => {})
  const transport = new StdioServerTransport()
  await server.connect(transport)
  await new Promise<void>((resolve) => {
    transport.onclose = () => resolve()
    process.stdin.on('end', () => resolve())
  })
}
