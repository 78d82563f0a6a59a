import { Hono, type MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { Config } from '../config/schema.js'
import { ANONYMOUS_CALLER, type Caller } from '../core/caller.js'
import type { Logger } from '../core/logger.js'
import { PRODUCT_NAME, packageVersion } from '../core/package-info.js'
import type { Gateway } from '../gateway/gateway.js'
import type { SessionHost } from '../transport/session-host.js'
import { findCaller, hostProblem, type OriginPolicy, originProblem, tokenTable } from './guards.js'
import type { McpSession } from './mcp-server.js'

export type GatewayEnv = { Variables: { caller: Caller } }

export type HttpAppOptions = {
  gateway: Gateway
  sessions: SessionHost<McpSession, Caller>
  config: () => Config
  log: Logger
  /** Extra routes (admin API, metrics) mounted by the composition root. */
  extend?: (app: Hono<GatewayEnv>) => void
  startedAt?: number
}

const rpcError = (code: number, message: string) => ({
  jsonrpc: '2.0',
  error: { code, message },
  id: null,
})

/** DNS-rebinding protection (MCP transports spec: validate Origin; bind loopback). */
export function checkOrigin(policy: () => OriginPolicy): MiddlewareHandler<GatewayEnv> {
  return async function checkOrigin(c, next) {
    const p = policy()
    const problem = hostProblem(c.req.header('host'), p) ?? originProblem(c.req.header('origin'), p)
    if (problem) return c.json(rpcError(-32000, `Forbidden: ${problem}`), 403)
    await next()
  }
}

/**
 * Bearer auth for /mcp. With no client token configured the gateway is open, which the
 * composition root allows only on a loopback bind (and says so at start-up).
 */
export function requireClientToken(config: () => Config): MiddlewareHandler<GatewayEnv> {
  let cachedFor: Config['auth']['tokens'] | undefined
  let table = tokenTable([])
  return async function requireClientToken(c, next) {
    const tokens = config().auth.tokens
    if (tokens !== cachedFor) {
      table = tokenTable(tokens)
      cachedFor = tokens
    }
    if (tokens.length === 0) {
      c.set('caller', ANONYMOUS_CALLER)
      return next()
    }
    const caller = findCaller(table, c.req.header('authorization'))
    if (!caller) {
      return c.json(
        rpcError(
          -32001,
          'Unauthorized: send "Authorization: Bearer <token>" with a client token of this gateway',
        ),
        401,
        {
          'WWW-Authenticate': `Bearer realm="${PRODUCT_NAME}"`,
        },
      )
    }
    c.set('caller', caller)
    await next()
  }
}

export function createHttpApp(opts: HttpAppOptions): Hono<GatewayEnv> {
  const app = new Hono<GatewayEnv>()
  const startedAt = opts.startedAt ?? Date.now()
  const policy = (): OriginPolicy => {
    const { listen } = opts.config()
    return {
      allowedHosts: listen.allowedHosts,
      allowedOrigins: listen.allowedOrigins,
      bindHost: listen.host,
    }
  }

  app.use('*', checkOrigin(policy))

  app.get('/health', (c) =>
    c.json({
      status: 'ok',
      name: PRODUCT_NAME,
      version: packageVersion(),
      uptimeS: Math.round((Date.now() - startedAt) / 1000),
    }),
  )

  app.get('/ready', (c) => {
    const upstreams = opts.gateway.upstreams().map((u) => ({
      name: u.name,
      site: u.site,
      app: u.app,
      transport: u.transport,
      enabled: u.enabled,
      connected: u.status === 'connected',
      status: u.status,
      lastError: u.lastError,
      latencyMs: u.latencyMs,
      lastOkAt: u.lastOkAt,
      connectedAt: u.connectedAt,
      reconnects: u.reconnects,
      inFlight: u.inFlight,
      queued: u.queued,
    }))
    const enabled = upstreams.filter((u) => u.enabled)
    const up = enabled.filter((u) => u.connected).length
    const status = up === enabled.length ? 'ready' : up > 0 ? 'degraded' : 'unavailable'
    return c.json(
      { status, upstreams, sessions: opts.sessions.size },
      status === 'unavailable' && enabled.length > 0 ? 503 : 200,
    )
  })

  opts.extend?.(app)

  // Read per request, so that a reloaded limit applies at once.
  app.use('/mcp', (c, next) => {
    const max = opts.config().limits.maxBodyBytes
    return bodyLimit({
      maxSize: max,
      onError: (ctx) =>
        ctx.json(
          rpcError(
            -32600,
            `Request body too large: the limit is ${max} bytes (limits.maxBodyBytes)`,
          ),
          413,
        ),
    })(c, next)
  })
  app.use('/mcp', requireClientToken(opts.config))
  app.all('/mcp', async (c) => {
    let body: unknown
    if (c.req.method === 'POST') {
      try {
        body = await c.req.json()
      } catch {
        return c.json(rpcError(-32700, 'Parse error: the body is not valid JSON'), 400)
      }
    }
    const caller = c.get('caller')
    return opts.sessions.handle(c.req.raw, caller.name, body, caller)
  })

  app.notFound((c) =>
    c.json({ error: `no route ${c.req.method} ${c.req.path}; the MCP endpoint is /mcp` }, 404),
  )
  app.onError((err, c) => {
    opts.log.error('unhandled error in an HTTP handler', { path: c.req.path, err: err.message })
    return c.json({ error: 'internal error' }, 500)
  })
  return app
}
