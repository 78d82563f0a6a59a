import { resolve } from 'node:path'
import { loadManifestFile, manifestPath } from '../catalog/manifest.js'
import { isUnifiApp } from '../core/apps.js'
import { SLUG_PATTERN } from '../core/names.js'
import { loadCapturedMetaTools } from '../gateway/meta/definitions.js'
import { serveSimHttp, serveSimStdio } from '../sim/sim-host.js'
import { SIM_MODES, type SimMode, SimState } from '../sim/sim-state.js'
import { intOption, numberOption, out, parse, UsageError } from './args.js'

export const SIM_USAGE = `unifi-mcp-gateway sim --app network|protect|access [--port N | --stdio] [--site S | --sites a,b,...]
    [--mode lazy|meta_only|eager] [--latency-ms N] [--fail-rate P] [--seed N]
    [--manifest FILE] [--exclude-tools a,b] [--exit-on-stdin-close]

A simulated UniFi MCP server built from the manifests. Over HTTP it listens on 127.0.0.1
(port 0 picks a free one) and prints {"url": ..., "urls": {site: url}} as its first line on
stdout; GET /sim/stats reports calls and the largest number it had in flight. --sites serves
several sites from one process, each at /<site>/mcp with its own state (for scale tests).`

export async function runSim(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    app: { type: 'string' },
    port: { type: 'string' },
    stdio: { type: 'boolean', default: false },
    site: { type: 'string', default: 'default' },
    sites: { type: 'string' },
    mode: { type: 'string', default: 'lazy' },
    'latency-ms': { type: 'string' },
    'fail-rate': { type: 'string' },
    seed: { type: 'string' },
    manifest: { type: 'string' },
    'exclude-tools': { type: 'string' },
    'exit-on-stdin-close': { type: 'boolean', default: false },
  })
  const app = values.app
  if (!app || !isUnifiApp(app)) throw new UsageError('--app must be network, protect or access')
  if (!SIM_MODES.includes(values.mode as SimMode))
    throw new UsageError('--mode must be lazy, meta_only or eager')
  const sites = values.sites ? values.sites.split(',').map((s) => s.trim()) : [values.site]
  for (const site of sites)
    if (!SLUG_PATTERN.test(site))
      throw new UsageError(`site "${site}" must be a lower-case slug (a-z, 0-9, -)`)
  if (values.stdio && values.port !== undefined)
    throw new UsageError('use either --port or --stdio')
  if (values.stdio && sites.length > 1) throw new UsageError('--sites needs HTTP (--port)')
  const manifest = await loadManifestFile(
    app,
    values.manifest ? resolve(values.manifest) : manifestPath(app),
  )
  const seed = intOption(values.seed, '--seed') ?? 1
  const latencyMs = intOption(values['latency-ms'], '--latency-ms', 0, 600_000) ?? 0
  const failRate = numberOption(values['fail-rate'], '--fail-rate', 0, 1) ?? 0
  const excludeTools = (values['exclude-tools'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const processStats = { inFlight: 0, maxInFlight: 0 }
  const states = sites.map(
    (site) =>
      new SimState({
        app,
        site,
        mode: values.mode as SimMode,
        seed,
        latencyMs,
        failRate,
        manifest,
        excludeTools,
        processStats,
      }),
  )
  const captured = await loadCapturedMetaTools()
  const stdinClosed = new Promise<void>((done) => {
    process.stdin.once('end', () => done())
    process.stdin.once('close', () => done())
  })
  if (values.stdio) {
    await serveSimStdio(states[0] as SimState, captured, stdinClosed)
    return 0
  }
  const sim = await serveSimHttp(states, captured, intOption(values.port, '--port', 0, 65_535) ?? 0)
  out(JSON.stringify({ url: sim.url, urls: sim.urls, app, mode: values.mode }))
  await new Promise<void>((done) => {
    process.once('SIGTERM', () => done())
    process.once('SIGINT', () => done())
    if (values['exit-on-stdin-close']) {
      stdinClosed.then(() => done())
      process.stdin.resume()
    }
  })
  await sim.close()
  return 0
}
