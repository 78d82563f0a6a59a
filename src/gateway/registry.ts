import type { Prompt, Tool } from '@modelcontextprotocol/sdk/types.js'
import type { Manifest, ToolEntry } from '../catalog/manifest.js'
import {
  type Drift,
  driftAgainstManifest,
  driftIsEmpty,
  type Served,
  servedFromIndex,
  servedFromManifest,
  servedFromToolsList,
} from '../catalog/served.js'
import type { IndexItem } from '../catalog/tool-index.js'
import type { Limits, UpstreamConfig } from '../config/schema.js'
import { APP_INFO, isUnifiApp, type UnifiApp } from '../core/apps.js'
import { type Caller, canSeeSite } from '../core/caller.js'
import { GatewayError, messageOf } from '../core/errors.js'
import { parseSingleJsonText } from '../core/json-text.js'
import type { Logger } from '../core/logger.js'
import { callTool, listAllPrompts, listAllTools } from '../upstream/calls.js'
import type {
  LoggingMessageParams,
  UpstreamConnection,
  UpstreamListener,
} from '../upstream/connection.js'
import { UpstreamPool } from '../upstream/pool.js'
import { profileFromToolsList, type UnifiProfile } from '../upstream/unifi-upstream.js'

/** What the gateway knows about one upstream, refreshed on every (re)connect and list_changed. */
export type UpstreamRuntime = {
  readonly config: UpstreamConfig
  readonly conn: UpstreamConnection
  /** Connection generation the tools below were learned from; -1 before the first. */
  toolsGeneration: number
  /** The upstream's tools/list as it answered it. */
  tools: Tool[]
  /** UniFi upstreams: how to drive it, and which domain tools it serves. */
  profile?: UnifiProfile
  served?: Served
  drift?: Drift
  prompts: Prompt[]
  promptsGeneration: number
}

type Refresh = { running?: Promise<void>; again: boolean }

export type RegistryEvents = {
  /** The tools some clients can see may have changed. */
  toolsChanged(upstream: string): void
  promptsChanged(upstream: string): void
  /** A log message for clients that can see this upstream (its own, or the gateway's about it). */
  log(upstream: string, params: LoggingMessageParams): void
}

/**
 * The upstreams behind the gateway and what each serves. Learning happens when an
 * upstream connects and again on its list_changed notifications, coalesced so that a
 * burst of notifications causes one refresh at a time (MCPJungle's watcher does the same).
 */
export class UpstreamRegistry implements UpstreamListener {
  readonly pool: UpstreamPool
  readonly #runtimes = new Map<string, UpstreamRuntime>()
  readonly #toolRefresh = new Map<string, Refresh>()
  readonly #promptRefresh = new Map<string, Refresh>()
  readonly #manifests: Readonly<Record<UnifiApp, Manifest>>
  readonly #log: Logger
  readonly #events: RegistryEvents
  #limits: Limits

  constructor(opts: {
    manifests: Readonly<Record<UnifiApp, Manifest>>
    limits: Limits
    log: Logger
    events: RegistryEvents
    clientInfo: { name: string; version: string }
  }) {
    this.#manifests = opts.manifests
    this.#limits = opts.limits
    this.#log = opts.log
    this.#events = opts.events
    this.pool = new UpstreamPool({
      limits: opts.limits,
      log: opts.log,
      listener: this,
      clientInfo: opts.clientInfo,
    })
  }

  setLimits(limits: Limits): void {
    this.#limits = limits
    this.pool.setLimits(limits)
  }

  manifest(app: UnifiApp): Manifest {
    return this.#manifests[app]
  }

  add(config: UpstreamConfig): UpstreamRuntime {
    const conn = this.pool.add(config)
    const runtime: UpstreamRuntime = {
      config,
      conn,
      toolsGeneration: -1,
      tools: [],
      prompts: [],
      promptsGeneration: -1,
    }
    this.#runtimes.set(config.name, runtime)
    return runtime
  }

  async remove(name: string): Promise<void> {
    this.#runtimes.delete(name)
    this.#toolRefresh.delete(name)
    this.#promptRefresh.delete(name)
    await this.pool.remove(name)
    this.#events.toolsChanged(name)
    this.#events.promptsChanged(name)
  }

  get(name: string): UpstreamRuntime | undefined {
    const rt = this.#runtimes.get(name)
    return rt?.config.enabled ? rt : undefined
  }

  /** Enabled upstreams, sorted by name. */
  all(): UpstreamRuntime[] {
    return [...this.#runtimes.values()]
      .filter((r) => r.config.enabled)
      .sort((a, b) => (a.config.name < b.config.name ? -1 : 1))
  }

  visible(caller: Caller): UpstreamRuntime[] {
    return this.all().filter((r) => canSeeSite(caller, r.config.site))
  }

  /** Sites (sorted) where this app has an upstream the caller may use. */
  sitesOf(app: UnifiApp, caller: Caller): string[] {
    return this.visible(caller)
      .filter((r) => r.config.app === app)
      .map((r) => r.config.site)
      .sort()
  }

  forSite(app: UnifiApp, site: string): UpstreamRuntime | undefined {
    return this.all().find((r) => r.config.app === app && r.config.site === site)
  }

  /**
   * The catalog entry for a tool at one upstream. The manifest's stored entry is used
   * unless the upstream serves something different (then its own description wins).
   */
  entryAt(rt: UpstreamRuntime, tool: string): ToolEntry | undefined {
    const app = rt.config.app
    if (!isUnifiApp(app)) return undefined
    const served = rt.served?.tools.get(tool)
    if (!served) return undefined
    const stored = this.#manifests[app].byName.get(tool)
    const changed = rt.drift?.changed.some((c) => c.name === tool) ?? false
    return stored && !changed ? stored : served
  }

  /**
   * What `<p>_tool_index` may list: tools served by a connected upstream of this app that
   * the caller may use ("if the index lists it, execute can run it").
   */
  indexItems(app: UnifiApp, caller: Caller, site?: string): IndexItem[] {
    const bySite = new Map<string, { entry: ToolEntry; sites: string[] }>()
    for (const rt of this.visible(caller)) {
      if (rt.config.app !== app || !rt.conn.connected || !rt.served) continue
      if (site !== undefined && rt.config.site !== site) continue
      for (const name of rt.served.tools.keys()) {
        const entry = this.entryAt(rt, name)
        if (!entry) continue
        const item = bySite.get(name)
        if (item) item.sites.push(rt.config.site)
        else bySite.set(name, { entry, sites: [rt.config.site] })
      }
    }
    for (const item of bySite.values()) item.sites.sort()
    return [...bySite.values()]
  }

  /**
   * Make sure the upstream is connected and its tools are learned for the current
   * connection (connecting on demand). Throws GatewayError('unavailable') naming it.
   */
  async ensureLearned(rt: UpstreamRuntime): Promise<void> {
    if (rt.conn.connected && rt.toolsGeneration === rt.conn.generation) return
    if (!rt.conn.connected) await rt.conn.ping(Math.min(this.#limits.callTimeoutMs, 10_000))
    for (let i = 0; i < 3 && rt.toolsGeneration !== rt.conn.generation; i++) {
      // Join a refresh already under way (the one the connection started) rather than
      // queueing another: learning is one index call of the whole catalog.
      const running = this.#toolRefresh.get(rt.config.name)?.running
      await (running ??
        this.#refresh(this.#toolRefresh, rt.config.name, () => this.#learnTools(rt)))
    }
    if (rt.toolsGeneration !== rt.conn.generation)
      throw new GatewayError(
        'unavailable',
        `upstream ${rt.config.name} is reconnecting; try again shortly`,
      )
  }

  // ---- UpstreamListener ---------------------------------------------------------------------

  connected(conn: UpstreamConnection): void {
    const rt = this.#runtimes.get(conn.name)
    if (!rt) return
    this.#events.log(conn.name, {
      level: 'info',
      logger: 'gateway',
      data: `upstream ${conn.name} (site ${rt.config.site}) connected`,
    })
    void this.#refresh(this.#toolRefresh, conn.name, () => this.#learnTools(rt))
    void this.#refresh(this.#promptRefresh, conn.name, () => this.#learnPrompts(rt))
  }

  disconnected(conn: UpstreamConnection, reason: string): void {
    if (!this.#runtimes.has(conn.name)) return
    // The index lists only what connected upstreams serve.
    this.#events.toolsChanged(conn.name)
    this.#events.log(conn.name, {
      level: 'warning',
      logger: 'gateway',
      data: `upstream ${conn.name} disconnected (${reason}); reconnecting in the background`,
    })
  }

  logMessage(conn: UpstreamConnection, params: LoggingMessageParams): void {
    if (this.#runtimes.has(conn.name))
      this.#events.log(conn.name, {
        ...params,
        logger: params.logger ? `${conn.name}/${params.logger}` : conn.name,
      })
  }

  toolsChanged(conn: UpstreamConnection): void {
    const rt = this.#runtimes.get(conn.name)
    if (rt) void this.#refresh(this.#toolRefresh, conn.name, () => this.#learnTools(rt))
  }

  promptsChanged(conn: UpstreamConnection): void {
    const rt = this.#runtimes.get(conn.name)
    if (rt) void this.#refresh(this.#promptRefresh, conn.name, () => this.#learnPrompts(rt))
  }

  async close(): Promise<void> {
    this.#runtimes.clear()
    await this.pool.close()
  }

  // ---- learning -------------------------------------------------------------------------------

  /** Run `work` now, or once more after the running one if a refresh is already under way. */
  #refresh(table: Map<string, Refresh>, name: string, work: () => Promise<void>): Promise<void> {
    let state = table.get(name)
    if (!state) {
      state = { again: false }
      table.set(name, state)
    }
    if (state.running) {
      state.again = true
      return state.running
    }
    const s = state
    const loop = async () => {
      do {
        s.again = false
        try {
          await work()
        } catch (err) {
          this.#log.warn('could not learn from upstream', { upstream: name, err: messageOf(err) })
        }
      } while (s.again)
      s.running = undefined
    }
    s.running = loop()
    return s.running
  }

  async #learnTools(rt: UpstreamRuntime): Promise<void> {
    const conn = rt.conn
    if (!conn.connected) return
    const generation = conn.generation
    const timeoutMs = this.#limits.callTimeoutMs
    const tools = await listAllTools(conn, timeoutMs)
    const app = rt.config.app
    if (isUnifiApp(app)) {
      const manifest = this.#manifests[app]
      const profile = profileFromToolsList(app, tools)
      let served: Served | undefined
      if (profile.hasIndex) {
        const index = await callTool(
          conn,
          { name: `${APP_INFO[app].prefix}_tool_index`, arguments: { include_schemas: true } },
          { timeoutMs },
        )
        served = servedFromIndex(app, parseSingleJsonText(index), manifest)
      }
      if (!served && profile.mode === 'meta_only') {
        served = servedFromManifest(app, manifest)
        if (rt.served?.source !== 'manifest_assumed')
          this.#log.warn(
            'upstream runs meta_only: its index lists only tools it has already run (upstream bug), so the gateway assumes it serves its manifest',
            { upstream: rt.config.name, tools: served.tools.size },
          )
      }
      served ??= servedFromToolsList(app, tools, manifest)
      const drift = driftAgainstManifest(app, manifest, served)
      if (!driftIsEmpty(drift) && JSON.stringify(drift) !== JSON.stringify(rt.drift))
        this.#log.warn('upstream differs from the gateway manifest', {
          upstream: rt.config.name,
          app,
          added: drift.added,
          removed: drift.removed,
          changed: drift.changed,
          hint: `refresh it with: unifi-mcp-gateway manifest sync --url <upstream url> --app ${app} --out manifests/${app}.json`,
        })
      if (conn.generation !== generation) return
      rt.profile = profile
      rt.served = served
      rt.drift = drift
      this.#log.info('learned upstream tools', {
        upstream: rt.config.name,
        mode: profile.mode,
        tools: served.tools.size,
        source: served.source,
      })
    } else if (conn.generation !== generation) {
      return
    }
    rt.tools = tools
    rt.toolsGeneration = generation
    this.#events.toolsChanged(rt.config.name)
  }

  async #learnPrompts(rt: UpstreamRuntime): Promise<void> {
    const conn = rt.conn
    if (!conn.connected) return
    const generation = conn.generation
    const prompts = await listAllPrompts(conn, this.#limits.callTimeoutMs)
    if (conn.generation !== generation) return
    rt.prompts = prompts
    rt.promptsGeneration = generation
    this.#events.promptsChanged(rt.config.name)
  }
}
