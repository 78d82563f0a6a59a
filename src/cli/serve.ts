import type { Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { loadManifests } from '../catalog/manifest.js'
import { type LoadedConfig, loadConfigFile, parseConfig } from '../config/load.js'
import type { Config } from '../config/schema.js'
import { type Caller, STDIO_CALLER } from '../core/caller.js'
import { createLogger, type Logger } from '../core/logger.js'
import { PRODUCT_NAME, packageVersion } from '../core/package-info.js'
import { Gateway } from '../gateway/gateway.js'
import { loadCapturedMetaTools } from '../gateway/meta/definitions.js'
import { isLoopbackAddress } from '../server/guards.js'
import { createHttpApp } from '../server/http-app.js'
import { createMcpSession, type McpSession } from '../server/mcp-server.js'
import { SessionHost } from '../transport/session-host.js'
import { err, intOption, out, parse, UsageError } from './args.js'
import { type Demo, startDemo } from './demo.js'

export const SERVE_USAGE = `unifi-mcp-gateway serve [--config FILE] [--host H] [--port N] [--stdio]

Runs the gateway. Without --config (or GATEWAY_CONFIG) it runs the demo: simulated upstreams
for sites hq and branch, and prints the URL and token to use.`

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
  const configFile = values.config ?? env.GATEWAY_CONFIG
  let demo: Demo | undefined
  let loaded: LoadedConfig
  if (configFile) {
    loaded = await loadConfigFile(configFile, env)
  } else {
    const demoPort = port ?? (env.GATEWAY_PORT ? Number(env.GATEWAY_PORT) : 8080)
    demo = await startDemo(env, demoPort)
    loaded = {
      config: parseConfig(demo.config, { ...env, GATEWAY_TOKEN: undefined }, 'demo'),
      stateFile: '.gateway-state/demo-state.json',
    }
  }
  const config: Config = {
    ...loaded.config,
    listen: {
      ...loaded.config.listen,
      ...(values.host ? { host: values.host } : {}),
      ...(port !== undefined ? { port } : {}),
    },
  }
  const log = createLogger({ level: config.log.level })
  if (!values.stdio && config.auth.tokens.length === 0) {
    if (!isLoopbackAddress(config.listen.host)) {
      err(
        `refusing to serve without a client token on ${config.listen.host}: add auth.tokens (or set GATEWAY_TOKEN), or bind 127.0.0.1`,
      )
      await demo?.close()
      return 2
    }
    log.warn('no client token configured: /mcp is open to anything on this machine (loopback only)')
  }
  try {
    return await runGateway(config, log, { stdio: values.stdio, ...(demo ? { demo } : {}) })
  } finally {
    await demo?.close()
  }
}

async function runGateway(
  config: Config,
  log: Logger,
  opts: { stdio: boolean; demo?: Demo },
): Promise<number> {
  const [manifests, captured] = await Promise.all([loadManifests(), loadCapturedMetaTools()])
  const gateway = new Gateway({
    config,
    manifests,
    captured,
    log,
    clientInfo: { name: PRODUCT_NAME, version: packageVersion() },
  })
  gateway.start()
  await gateway.ready(10_000)
  for (const u of gateway.upstreams())
    if (u.status !== 'connected')
      log.warn('upstream not connected at start-up; retrying in the background', {
        upstream: u.name,
        error: u.lastError,
      })

  if (opts.stdio) {
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
    await gateway.close()
    return 0
  }

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
  const app = createHttpApp({ gateway, sessions, config: () => gateway.config, log })
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
  log.info('listening', { url, upstreams: gateway.upstreams().map((u) => `${u.name}:${u.status}`) })
  printBanner(url, gateway, opts.demo)

  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve())
    process.once('SIGINT', () => resolve())
  })
  log.info('shutting down')
  const forced = setTimeout(() => process.exit(1), 30_000)
  forced.unref()
  process.once('SIGINT', () => process.exit(1))
  server.close()
  await gateway.core.jobs.drain(10_000)
  await sessions.close()
  ;(server as HttpServer & { closeAllConnections?: () => void }).closeAllConnections?.()
  await gateway.close()
  log.info('stopped')
  return 0
}

function printBanner(url: string, gateway: Gateway, demo: Demo | undefined): void {
  out(`${PRODUCT_NAME} ${packageVersion()} listening on ${url}`)
  for (const u of gateway.upstreams())
    out(`  upstream ${u.name} (site ${u.site}, ${u.app}, ${u.transport}): ${u.status}`)
  if (!demo) return
  out('')
  out(`Demo mode: simulated UniFi upstreams for sites "hq" and "branch".`)
  out(`  URL:   ${url}`)
  out(`  Token: ${demo.token}`)
  out('')
  out('Try it with the MCP Inspector CLI:')
  out(
    `  npx @modelcontextprotocol/inspector-cli --cli ${url} --transport http --header "Authorization: Bearer ${demo.token}" --method tools/call --tool-name unifi_execute --tool-arg tool=unifi_list_clients --tool-arg site=hq`,
  )
}

export { UsageError }
