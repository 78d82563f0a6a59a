import { resolve } from 'node:path'
import { loadManifestFile, manifestPath } from '../catalog/manifest.js'
import { isUnifiApp } from '../core/apps.js'
import { SLUG_PATTERN } from '../core/names.js'
import { loadCapturedMetaTools } from '../gateway/meta/definitions.js'
import { serveSimHttp, serveSimStdio } from '../sim/sim-host.js'
import { SIM_MODES, type SimMode, SimState } from '../sim/sim-state.js'
import { intOption, numberOption, out, parse, UsageError } from './args.js'

export const SIM_USAGE = `unifi-mcp-gateway sim --app network|protect|access [--port N | --stdio] [--site S]
    [--mode lazy|meta_only|eager] [--latency-ms N] [--fail-rate P] [--seed N]
    [--manifest FILE] [--exclude-tools a,b] [--exit-on-stdin-close]

A simulated UniFi MCP server built from the manifests. Over HTTP it listens on 127.0.0.1
(port 0 picks a free one) and prints {"url": ...} as its first line on stdout; GET /sim/stats
reports calls and the largest number it had in flight.`

export async function runSim(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    app: { type: 'string' },
    port: { type: 'string' },
    stdio: { type: 'boolean', default: false },
    site: { type: 'string', default: 'default' },
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
  if (!SLUG_PATTERN.test(values.site))
    throw new UsageError('--site must be a lower-case slug (a-z, 0-9, -)')
  if (values.stdio && values.port !== undefined)
    throw new UsageError('use either --port or --stdio')
  const manifest = await loadManifestFile(
    app,
    values.manifest ? resolve(values.manifest) : manifestPath(app),
  )
  const state = new SimState({
    app,
    site: values.site,
    mode: values.mode as SimMode,
    seed: intOption(values.seed, '--seed') ?? 1,
    latencyMs: intOption(values['latency-ms'], '--latency-ms', 0, 600_000) ?? 0,
    failRate: numberOption(values['fail-rate'], '--fail-rate', 0, 1) ?? 0,
    manifest,
    excludeTools:
      values['exclude-tools']
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean) ?? [],
  })
  const captured = await loadCapturedMetaTools()
  if (values.stdio) {
    await serveSimStdio(state, captured)
    return 0
  }
  const sim = await serveSimHttp(state, captured, intOption(values.port, '--port', 0, 65_535) ?? 0)
  out(JSON.stringify({ url: sim.url, app, site: values.site, mode: values.mode }))
  await new Promise<void>((done) => {
    const stop = () => done()
    process.once('SIGTERM', stop)
    process.once('SIGINT', stop)
    if (values['exit-on-stdin-close']) {
      process.stdin.on('end', stop)
      process.stdin.on('close', stop)
      process.stdin.resume()
    }
  })
  await sim.close()
  return 0
}
