import { z } from 'zod'
import { isUpstreamMetaTool, type Manifest, type ToolEntry } from '../catalog/manifest.js'
import { APP_INFO, type UnifiApp } from '../core/apps.js'
import { sleep } from '../core/backoff.js'
import { lenient, pydanticMessage, unknownArgumentsMessage } from '../core/lenient-args.js'
import { JobStore } from '../jobs/job-store.js'
import { createRng, type Rng } from './prng.js'
import { mutationResult, previewResult, readResult } from './synth.js'

export const SIM_MODES = ['lazy', 'meta_only', 'eager'] as const
export type SimMode = (typeof SIM_MODES)[number]

export type SimOptions = {
  app: UnifiApp
  site: string
  mode: SimMode
  seed: number
  latencyMs: number
  failRate: number
  manifest: Manifest
  /** Tools this simulated release does not have (an older upstream version). */
  excludeTools?: readonly string[]
  /** Shared by every site of one simulator process, to observe the gateway's global limit. */
  processStats?: ProcessStats
}

export type ProcessStats = { inFlight: number; maxInFlight: number }

/** A failure inside a tool, with the text FastMCP would report for it. */
export class SimToolError extends Error {}

export type SimStats = {
  inFlight: number
  maxInFlight: number
  calls: number
  cancelled: number
  failures: number
  byTool: Record<string, number>
  requests: Record<string, number>
}

const REDACTION_MARKER = '***REDACTED***'
const SENSITIVE_KEY = /password|secret|token|psk|api_key|passphrase/i

/** Path of the first sensitive key whose value is the redaction marker (upstream redaction.py). */
function findMarker(value: unknown, path: string): string | undefined {
  if (!value || typeof value !== 'object') return undefined
  for (const [k, v] of Object.entries(value)) {
    const here = path ? `${path}.${k}` : k
    if (SENSITIVE_KEY.test(k) && v === REDACTION_MARKER) return here
    const nested = findMarker(v, here)
    if (nested) return nested
  }
  return undefined
}

/** A lax zod schema for a manifest input schema, so wrong types get pydantic's messages. */
function argsSchema(input: Record<string, unknown>): z.ZodObject {
  const props = (input.properties ?? {}) as Record<string, { type?: string }>
  const required = new Set(Array.isArray(input.required) ? input.required.map(String) : [])
  const shape: Record<string, z.ZodType> = {}
  for (const [key, prop] of Object.entries(props)) {
    let t: z.ZodType
    switch (prop.type) {
      case 'string':
        t = z.string()
        break
      case 'integer':
        t = z.preprocess(
          (v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v),
          z.number().int(),
        )
        break
      case 'number':
        t = z.preprocess(
          (v) =>
            typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : v,
          z.number(),
        )
        break
      case 'boolean':
        t = lenient.bool(false)
        break
      case 'array':
        t = lenient.requiredArray(z.unknown())
        break
      case 'object':
        t = z.preprocess(
          (v) => (typeof v === 'string' ? safeJson(v) : v),
          z.record(z.string(), z.unknown()),
        )
        break
      default:
        t = z.unknown()
    }
    shape[key] = required.has(key)
      ? t
      : z.preprocess((v) => (v === null ? undefined : v), t.optional())
  }
  return z.object(shape)
}

function safeJson(v: string): unknown {
  try {
    return JSON.parse(v)
  } catch {
    return v
  }
}

/**
 * Process-wide state of one simulated upstream, shared by all its sessions as the real
 * server shares it: lazily loaded categories, the job store, and call statistics.
 */
export class SimState {
  readonly opts: SimOptions
  readonly jobs = new JobStore({
    maxQueuedJobs: 1_000_000,
    jobRetentionMs: 3_600_000,
    maxRetainedJobs: 1_000,
  })
  readonly loadedCategories = new Set<string>()
  readonly stats: SimStats = {
    inFlight: 0,
    maxInFlight: 0,
    calls: 0,
    cancelled: 0,
    failures: 0,
    byTool: {},
    requests: {},
  }
  #excluded: Set<string>
  #disabledPrompts = new Set<string>()
  readonly #failRng: Rng
  readonly #schemas = new Map<string, z.ZodObject>()
  /** Called when the set of tools or prompts changes at run time (sim control endpoint). */
  onToolsChanged?: () => void
  onPromptsChanged?: () => void

  constructor(opts: SimOptions) {
    this.opts = opts
    this.#excluded = new Set(opts.excludeTools ?? [])
    this.#failRng = createRng(opts.seed ^ 0x5eed)
  }

  get prefix(): string {
    return APP_INFO[this.opts.app].prefix
  }

  /** Domain tools of this (simulated) release. */
  domainTools(): ToolEntry[] {
    return this.opts.manifest.tools.filter(
      (t) => !isUpstreamMetaTool(this.opts.app, t.name) && !this.#excluded.has(t.name),
    )
  }

  domainTool(name: string): ToolEntry | undefined {
    if (this.#excluded.has(name) || isUpstreamMetaTool(this.opts.app, name)) return undefined
    return this.opts.manifest.byName.get(name)
  }

  categoryOf(name: string): string {
    return this.opts.manifest.byName.get(name)?.category ?? ''
  }

  /** Is this domain tool in tools/list (registered) right now? */
  isRegistered(name: string): boolean {
    const tool = this.domainTool(name)
    if (!tool) return false
    return this.opts.mode === 'eager' || this.loadedCategories.has(tool.category)
  }

  registeredDomainTools(): ToolEntry[] {
    return this.domainTools().filter((t) => this.isRegistered(t.name))
  }

  setExcluded(tools: readonly string[]): void {
    this.#excluded = new Set(tools)
    this.onToolsChanged?.()
  }

  promptDisabled(name: string): boolean {
    return this.#disabledPrompts.has(name)
  }

  setDisabledPrompts(names: readonly string[]): void {
    this.#disabledPrompts = new Set(names)
    this.onPromptsChanged?.()
  }

  count(method: string): void {
    this.stats.requests[method] = (this.stats.requests[method] ?? 0) + 1
  }

  resetStats(): void {
    Object.assign(this.stats, {
      maxInFlight: this.stats.inFlight,
      calls: 0,
      cancelled: 0,
      failures: 0,
      byTool: {},
      requests: {},
    })
  }

  /**
   * Run a domain tool as the upstream's permissioned wrapper would: strict arguments,
   * redaction-marker guard, validation, the confirm gate, then synthetic data.
   * Throws SimToolError with FastMCP's text for failures.
   */
  async runDomainTool(
    tool: ToolEntry,
    rawArgs: Record<string, unknown>,
    signal: AbortSignal,
    progress?: (p: { progress: number; total: number; message: string }) => Promise<void>,
  ): Promise<Record<string, unknown>> {
    const props = Object.keys((tool.inputSchema.properties ?? {}) as Record<string, unknown>)
    const unknown = Object.keys(rawArgs).filter((k) => !props.includes(k))
    if (unknown.length > 0)
      throw new SimToolError(unknownArgumentsMessage(tool.name, unknown, props))
    const marker = findMarker(rawArgs, '')
    if (marker)
      throw new SimToolError(
        `Invalid params for '${tool.name}': ${marker} is the redaction marker, not a real value. Omit ${marker} to keep the current value.`,
      )
    let schema = this.#schemas.get(tool.name)
    if (!schema) {
      schema = argsSchema(tool.inputSchema)
      this.#schemas.set(tool.name, schema)
    }
    const parsed = schema.safeParse(rawArgs)
    const fn = tool.name.slice(this.prefix.length + 1)
    if (!parsed.success)
      throw new SimToolError(pydanticMessage(tool.name, `${fn}Arguments`, parsed.error, rawArgs))
    const args = Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined))

    this.stats.calls++
    this.stats.byTool[tool.name] = (this.stats.byTool[tool.name] ?? 0) + 1
    this.stats.inFlight++
    this.stats.maxInFlight = Math.max(this.stats.maxInFlight, this.stats.inFlight)
    const proc = this.opts.processStats
    if (proc) {
      proc.inFlight++
      proc.maxInFlight = Math.max(proc.maxInFlight, proc.inFlight)
    }
    try {
      if (this.opts.latencyMs > 0) {
        // Progress at quarters when asked for; deadlines from the start keep the total at
        // --latency-ms whatever the timer jitter.
        const steps = progress ? 4 : 1
        const start = performance.now()
        for (let i = 1; i <= steps; i++) {
          await sleep(
            Math.max(0, start + (this.opts.latencyMs * i) / steps - performance.now()),
            signal,
          )
          await progress?.({
            progress: i,
            total: steps,
            message: `${tool.name}: step ${i} of ${steps}`,
          })
        }
      }
      signal.throwIfAborted()
      if (this.opts.failRate > 0 && this.#failRng.next() < this.opts.failRate) {
        this.stats.failures++
        throw new SimToolError(
          `Error executing tool ${tool.name}: simulated controller failure (sim --fail-rate ${this.opts.failRate})`,
        )
      }
      const ctx = { app: this.opts.app, site: this.opts.site, seed: this.opts.seed }
      if (!tool.readOnly)
        return args.confirm === true
          ? mutationResult(ctx, tool.name, args)
          : previewResult(ctx, tool.name, args)
      return readResult(ctx, tool.name, args)
    } catch (err) {
      if (signal.aborted) this.stats.cancelled++
      throw err
    } finally {
      this.stats.inFlight--
      if (proc) proc.inFlight--
    }
  }
}
