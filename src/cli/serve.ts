import type { Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { loadManifests } from '../catalog/manifest.js'
import { ConfigError } from '../config/issues.js'
import { type LoadedConfig, loadConfigFile, parseConfig } from '../config/load.js'
import type { Config } from '../config/schema.js'
import { StateStore } from '../config/state-file.js'
import { type Caller, STDIO_CALLER } from '../core/caller.js'
import { messageOf } from '../core/errors.js'
import { createLogger, type Logger } from '../core/logger.js'
import { PRODUCT_NAME, packageVersion } from '../core/package-info.js'
import { UpstreamAdmin } from '../gateway/admin.js'
import { Gateway } from '../gateway/gateway.js'
import { loadCapturedMetaTools } from '../gateway/meta/definitions.js'
import { mountAdminApi, requireAdminToken } from '../server/admin-api.js'
import { isLoopbackAddress } from '../server/guards.js'
import { createHttpApp } from '../server/http-app.js'
import { createMcpSession, type McpSession } from '../server/mcp-server.js'
import { createMetrics } from '../server/metrics.js'
import { SessionHost } from '../transport/session-host.js'
import { err, intOption, out, parse } from './args.js'
import { type Demo, startDemo } from './demo.js'

export const SERVE_USAGE = `unifi-mcp-gateway serve [--config FILE] [--host H] [--port N] [--stdio]

Runs the gateway. Without --config (or GATEWAY_CONFIG) it runs the demo: simulated upstreams
for sites hq and branch, and prints the URL and token to use. SIGHUP reloads the config file;
SIGTERM and SIGINT stop it gracefully.`

type Env = Readonly<Record<string, string | undefined>>

/** The composition root: the only place that reads config and env and wires the graph. */
export async function runServe(argv: string[], env: Env): Promise<number> {
  const { values } = parse(argv, {
    config: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    stdio: { type: 'boolean', default: false },
  })
  const port = intOption(values.port, '--port', 0, 65_535)
  const configFile = values.config ?? (env.GATEWAY_CONFIG || undefined)
  let demo: Demo | undefined
  let loaded: LoadedConfig
  if (configFile) {
    loaded = await loadConfigFile(configFile, env)
  } else {
    demo = await startDemo(env, port ?? (env.GATEWAY_PORT ? Number(env.GATEWAY_PORT) : 8080))
    loaded = {
      config: parseConfig(demo.config, { ...env, GATEWAY_TOKEN: undefined }, 'demo'),
      stateFile: '.gateway-state/demo-state.json',
    }
  }
  try {
    const withFlags = (c: Config): Config => ({
      ...c,
      listen: {
        ...c.listen,
        ...(values.host ? { host: values.host } : {}),
        ...(port !== undefined ? { port } : {}),
      },
    })
    const config = withFlags(loaded.config)
    const log = createLogger({ level: config.log.level })
    if (!values.stdio && config.auth.tokens.length === 0) {
      if (!isLoopbackAddress(config.listen.host)) {
        err(
          `refusing to serve without a client token on ${config.listen.host}: add auth.tokens (or set GATEWAY_TOKEN), or bind 127.0.0.1`,
        )
        return 2
      }
      log.warn(
        'no client token configured: /mcp is open to anything on this machine (loopback only)',
      )
    }
    const store = new StateStore(loaded.stateFile)
    await store.load()
    const reload = configFile
      ? async () => withFlags((await loadConfigFile(configFile, env)).config)
      : undefined
    return await runGateway(config, log, store, {
      stdio: values.stdio,
      ...(demo ? { demo } : {}),
      ...(reload ? { reload } : {}),
    })
  } finally {
    await demo?.close()
  }
}

type RunOptions = { stdio: boolean; demo?: Demo; reload?: () => Promise<Config> }

async function runGateway(
  config: Config,
  log: Logger,
  store: StateStore,
  opts: RunOptions,
): Promise<number> {
  const [manifests, captured] = await Promise.all([loadManifests(), loadCapturedMetaTools()])
  const metrics = createMetrics()
  const gateway = new Gateway({
    config,
    manifests,
    captured,
    log,
    clientInfo: { name: PRODUCT_NAME, version: packageVersion() },
    observer: metrics.observer,
  })
  const admin = new UpstreamAdmin({ gateway, store, config, log })
  admin.start()
  await gateway.ready(10_000)
  for (const u of gateway.upstreams())
    if (u.enabled && u.status !== 'connected')
      log.warn('upstream not connected at start-up; retrying in the background', {
        upstream: u.name,
        error: u.lastError,
      })

  if (opts.stdio) return serveStdio(gateway, log)

  const sessions = new SessionHost<McpSession, Caller>({
    create: (_owner, id, caller) => {
      const session = createMcpSession(gateway, caller, id)
      return { server: session.server, state: session }
    },
    onClosed: (s) => s.state.dispose(),
    idleMs: config.limits.sessionIdleMs,
    max: config.limits.maxSessions,
    maxBodyBytes: config.limits.maxBodyBytes,
  })
  metrics.attach(gateway, () => sessions.size)
  const current = () => gateway.config
  const app = createHttpApp({
    gateway,
    sessions,
    config: current,
    log,
    extend: (a) => {
      const metricsAuth = requireAdminToken(current)
      a.get('/metrics', async (c, next) =>
        current().metrics.auth === 'admin' ? metricsAuth(c, next) : next(),
      )
      a.get('/metrics', async (c) =>
        c.text(await metrics.registry.metrics(), 200, {
          'content-type': metrics.registry.contentType,
        }),
      )
      mountAdminApi(a, { admin, gateway, config: current })
    },
  })
  let server: HttpServer
  try {
    server = await new Promise<HttpServer>((resolve, reject) => {
      const s = serve(
        { fetch: app.fetch, hostname: config.listen.host, port: config.listen.port },
        () => resolve(s as HttpServer),
      )
      s.once('error', reject)
    })
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    err(
      code === 'EADDRINUSE'
        ? `port ${config.listen.port} is in use: pick another with --port or GATEWAY_PORT`
        : `cannot listen: ${String(e)}`,
    )
    await gateway.close()
    return 1
  }
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const url = `http://${host}:${address.port}/mcp`
  log.info('listening', {
    url,
    upstreams: gateway.upstreams().map((u) => `${u.name}:${u.status}`),
    stateFile: store.file,
  })
  printBanner(url, gateway, opts.demo)

  const onHup = () => {
    void reloadConfig(gateway, admin, log, opts.reload)
  }
  process.on('SIGHUP', onHup)
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'))
    process.once('SIGINT', () => resolve('SIGINT'))
  })
  process.off('SIGHUP', onHup)
  await shutdown(signal, { server, sessions, gateway, log })
  return 0
}

/** SIGHUP: apply a new config file, or keep the running one if the new one is invalid. */
async function reloadConfig(
  gateway: Gateway,
  admin: UpstreamAdmin,
  log: Logger,
  load?: () => Promise<Config>,
): Promise<void> {
  if (!load) {
    log.warn('SIGHUP ignored: the gateway runs without a config file (demo)')
    return
  }
  let next: Config
  try {
    next = await load()
  } catch (e) {
    log.error('config reload refused', {
      keeping: 'the running config',
      problems:
        e instanceof ConfigError
          ? e.issues.map((i) => `${i.path || '(root)'}: ${i.message}`)
          : [messageOf(e)],
    })
    return
  }
  const running = gateway.config
  if (next.listen.host !== running.listen.host || next.listen.port !== running.listen.port)
    log.warn('listen.host and listen.port changes take effect after a restart')
  const applied: Config = { ...next, listen: running.listen }
  try {
    const diff = await admin.reload(applied)
    gateway.setConfig(applied)
    log.info('config reloaded', diff)
  } catch (e) {
    log.error('config reload refused', {
      keeping: 'the running config',
      problems: [messageOf(e)],
    })
  }
}

/** Stop accepting, let running jobs finish (bounded), then close sessions and upstreams. */
async function shutdown(
  signal: string,
  ctx: {
    server: HttpServer
    sessions: SessionHost<McpSession, Caller>
    gateway: Gateway
    log: Logger
  },
): Promise<void> {
  const { server, sessions, gateway, log } = ctx
  const grace = gateway.config.limits.shutdownGraceMs
  log.info('shutting down', { signal, runningJobs: gateway.core.jobs.activeCount, graceMs: grace })
  const forced = setTimeout(() => {
    log.error('shutdown took too long; exiting')
    process.exit(1)
  }, grace + 20_000)
  forced.unref()
  process.once('SIGINT', () => process.exit(1))
  process.once('SIGTERM', () => process.exit(1))
  server.close()
  const drained = await gateway.core.jobs.drain(grace)
  if (!drained)
    log.warn('jobs still running after the grace period are cancelled', {
      jobs: gateway.core.jobs.activeCount,
    })
  await sessions.close()
  server.closeAllConnections()
  await gateway.close()
  log.info('stopped')
}

async function serveStdio(gateway: Gateway, log: Logger): Promise<number> {
  const session = createMcpSession(gateway, STDIO_CALLER, 'stdio')
  const transport = new StdioServerTransport()
  await session.server.connect(transport)
  log.info('serving MCP over stdio', { upstreams: gateway.upstreams().length })
  await new Promise<void>((resolve) => {
    transport.onclose = () => resolve()
    process.stdin.once('end', () => resolve())
    process.once('SIGTERM', () => resolve())
    process.once('SIGINT', () => resolve())
  })
  session.dispose()
  await gateway.core.jobs.drain(gateway.config.limits.shutdownGraceMs)
  await gateway.close()
  return 0
}

function printBanner(url: string, gateway: Gateway, demo: Demo | undefined): void {
  out(`${PRODUCT_NAME} ${packageVersion()} listening on ${url}`)
  for (const u of gateway.upstreams())
    out(
      `  upstream ${u.name} (site ${u.site}, ${u.app}, ${u.transport}): ${u.enabled ? u.status : 'disabled'}`,
    )
  if (!demo) return
  out('')
  out('Demo mode: simulated UniFi upstreams for sites "hq" and "branch".')
  out(`  URL:   ${url}`)
  out(`  Token: ${demo.token}`)
  out('')
  out('Try it with the MCP Inspector CLI:')
  out(
    `  npx @modelcontextprotocol/inspector-cli --cli ${url} --transport http --header "Authorization: Bearer ${demo.token}" --method tools/call --tool-name unifi_execute --tool-arg tool=unifi_list_clients --tool-arg site=hq`,
  )
}
