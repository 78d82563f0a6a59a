import type { Hono, MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { Config } from '../config/schema.js'
import { isUnifiApp } from '../core/apps.js'
import { namespaced } from '../core/names.js'
import type { UpstreamAdmin } from '../gateway/admin.js'
import type { Gateway } from '../gateway/gateway.js'
import { tokenMatches } from './guards.js'
import type { GatewayEnv } from './http-app.js'
import { httpErrorBody, httpStatusOf } from './http-errors.js'

/** Admin token only; the client tokens never work here, and the admin token never on /mcp. */
export function requireAdminToken(config: () => Config): MiddlewareHandler<GatewayEnv> {
  return async function requireAdminToken(c, next) {
    const expected = config().auth.adminToken
    if (!expected)
      return c.json(
        { error: 'the admin API is disabled: set auth.adminToken (or GATEWAY_ADMIN_TOKEN)' },
        401,
        {
          'WWW-Authenticate': 'Bearer realm="unifi-mcp-gateway-admin"',
        },
      )
    if (!tokenMatches(expected, c.req.header('authorization')))
      return c.json({ error: 'unauthorized: send "Authorization: Bearer <admin token>"' }, 401, {
        'WWW-Authenticate': 'Bearer realm="unifi-mcp-gateway-admin"',
      })
    await next()
  }
}

/**
 * MCPJungle-shaped registry API under /api/v0: servers, tools, prompts, and the names the
 * gateway left out. Errors are `{"error": "..."}`.
 */
export function mountAdminApi(
  app: Hono<GatewayEnv>,
  opts: { admin: UpstreamAdmin; gateway: Gateway; config: () => Config },
): void {
  const { admin, gateway } = opts
  app.use('/api/v0/*', requireAdminToken(opts.config))
  app.use(
    '/api/v0/*',
    bodyLimit({
      maxSize: 256 * 1024,
      onError: (c) => c.json({ error: 'request body too large (256 KiB at most)' }, 413),
    }),
  )
  const guard =
    <T>(work: () => Promise<T>) =>
    async (): Promise<
      | { ok: true; value: T }
      | { ok: false; status: ReturnType<typeof httpStatusOf>; body: { error: string } }
    > => {
      try {
        return { ok: true, value: await work() }
      } catch (err) {
        return { ok: false, status: httpStatusOf(err), body: httpErrorBody(err) }
      }
    }

  app.get('/api/v0/servers', (c) => c.json(admin.list()))

  app.get('/api/v0/servers/:name', async (c) => {
    const r = await guard(async () => admin.view(c.req.param('name')))()
    return r.ok ? c.json(r.value) : c.json(r.body, r.status)
  })

  app.post('/api/v0/servers', async (c) => {
    let body: unknown
    try {
      body = await c.req.json()
    } catch {
      return c.json(
        { error: 'the body is not valid JSON: send a server entry as in the config file' },
        400,
      )
    }
    const force = ['true', '1', 'yes'].includes((c.req.query('force') ?? '').toLowerCase())
    const r = await guard(() => admin.register(body, force))()
    if (!r.ok) return c.json(r.body, r.status)
    return c.json(r.value.view, r.value.replaced ? 200 : 201)
  })

  app.delete('/api/v0/servers/:name', async (c) => {
    const r = await guard(() => admin.deregister(c.req.param('name')))()
    return r.ok ? c.body(null, 204) : c.json(r.body, r.status)
  })

  for (const action of ['enable', 'disable'] as const) {
    app.post(`/api/v0/servers/:name/${action}`, async (c) => {
      const r = await guard(() => admin.setEnabled(c.req.param('name'), action === 'enable'))()
      return r.ok ? c.json(r.value) : c.json(r.body, r.status)
    })
  }

  app.get('/api/v0/tools', (c) => {
    const server = c.req.query('server')
    const tools = gateway.core.registry
      .all()
      .filter((rt) => !server || rt.config.name === server)
      .flatMap((rt) => {
        const base = { server: rt.config.name, site: rt.config.site, app: rt.config.app }
        if (isUnifiApp(rt.config.app))
          return [...(rt.served?.tools.values() ?? [])].map((t) => ({
            name: namespaced(rt.config.name, t.name),
            ...base,
            description: t.description,
            readOnly: t.readOnly,
          }))
        return rt.tools.map((t) => ({
          name: namespaced(rt.config.name, t.name),
          ...base,
          description: t.description ?? '',
        }))
      })
    if (server && !gateway.core.registry.get(server))
      return c.json({ error: `no enabled upstream named "${server}"` }, 404)
    return c.json(tools)
  })

  app.get('/api/v0/prompts', (c) => {
    const server = c.req.query('server')
    const disabled = new Set(opts.config().prompts.disabled)
    const prompts = gateway.core.registry
      .all()
      .filter((rt) => !server || rt.config.name === server)
      .flatMap((rt) =>
        rt.prompts.map((p) => {
          const name = namespaced(rt.config.name, p.name)
          return {
            name,
            server: rt.config.name,
            description: p.description ?? '',
            arguments: p.arguments ?? [],
            enabled: !disabled.has(name) && !disabled.has(rt.config.name),
          }
        }),
      )
    return c.json(prompts)
  })

  app.get('/api/v0/excluded', (c) => c.json(gateway.exclusions()))
}
