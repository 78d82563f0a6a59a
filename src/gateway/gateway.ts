import {
  type CallToolResult,
  type GetPromptResult,
  McpError,
  type Prompt,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import type { Manifest } from '../catalog/manifest.js'
import type { Config, UpstreamConfig } from '../config/schema.js'
import { APP_INFO, isUnifiApp, type UnifiApp } from '../core/apps.js'
import type { Caller } from '../core/caller.js'
import { GatewayError, messageOf } from '../core/errors.js'
import { errorTextResult } from '../core/json-text.js'
import type { Logger } from '../core/logger.js'
import { splitNamespaced } from '../core/names.js'
import { JobStore } from '../jobs/job-store.js'
import { callTool } from '../upstream/calls.js'
import type { LoggingMessageParams } from '../upstream/connection.js'
import type { PoolSnapshot } from '../upstream/pool.js'
import { callDomainToolDirect } from '../upstream/unifi-upstream.js'
import type { CallContext, CallObserver, GatewayCore, SessionState } from './context.js'
import { type Exclusion, Exposure } from './exposure.js'
import type { CapturedMetaTools } from './meta/definitions.js'
import { callMetaTool, metaToolOf } from './meta/dispatch.js'
import { loggingObserver } from './observer.js'
import { readOnlyRefusal } from './policy.js'
import {
  decodeCursor,
  encodeCursor,
  getExposedPrompt,
  listExposedPrompts,
  PROMPT_PAGE_SIZE,
} from './prompts.js'
import { UpstreamRegistry, type UpstreamRuntime } from './registry.js'
import { buildToolList } from './tool-list.js'
import { callUpstream, progressForwarder, type UpstreamWork } from './upstream-call.js'

export const TOOL_PAGE_SIZE = 1_000

export type GatewayOptions = {
  config: Config
  manifests: Readonly<Record<UnifiApp, Manifest>>
  captured: CapturedMetaTools
  log: Logger
  clientInfo: { name: string; version: string }
  observer?: Partial<CallObserver>
}

type Listener = () => void

/**
 * The gateway's services behind one object: the upstream registry, the job store and the
 * meta-tools. It knows nothing of HTTP or of the SDK's server classes; the server layer
 * turns sessions and requests into calls on it.
 */
export class Gateway {
  readonly core: GatewayCore
  readonly exposure: Exposure
  #config: Config
  readonly #toolListeners = new Set<Listener>()
  readonly #promptListeners = new Set<Listener>()
  readonly #logListeners = new Set<(upstream: string, params: LoggingMessageParams) => void>()
  #toolsTimer: NodeJS.Timeout | undefined
  #promptsTimer: NodeJS.Timeout | undefined

  constructor(opts: GatewayOptions) {
    this.#config = opts.config
    this.exposure = new Exposure(opts.log)
    const registry = new UpstreamRegistry({
      manifests: opts.manifests,
      limits: opts.config.limits,
      log: opts.log,
      clientInfo: opts.clientInfo,
      events: {
        toolsChanged: () => this.#schedule('tools'),
        promptsChanged: () => this.#schedule('prompts'),
        log: (upstream, params) => {
          for (const fn of this.#logListeners) fn(upstream, params)
        },
      },
    })
    this.core = {
      config: () => this.#config,
      registry,
      jobs: new JobStore(opts.config.limits),
      captured: opts.captured,
      log: opts.log,
      observer: loggingObserver(opts.log, opts.observer),
    }
  }

  get config(): Config {
    return this.#config
  }

  /**
   * Wait (bounded) for the first connection attempt and tool discovery of the named
   * upstreams, or of all of them.
   */
  async ready(timeoutMs: number, names?: readonly string[]): Promise<void> {
    const runtimes = this.core.registry
      .all()
      .filter((rt) => !names || names.includes(rt.config.name))
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs)
    })
    const learned = Promise.all(
      runtimes.map(async (rt) => {
        if (await rt.conn.ready(timeoutMs))
          await this.core.registry.ensureLearned(rt).catch(() => {})
      }),
    )
    await Promise.race([learned, deadline])
    clearTimeout(timer)
  }

  addUpstream(config: UpstreamConfig): void {
    this.core.registry.add(config)
    this.#schedule('tools')
    this.#schedule('prompts')
  }

  async removeUpstream(name: string): Promise<void> {
    await this.core.registry.remove(name)
    this.exposure.forget(name)
  }

  /** Replace the running config (limits, modes, policies); upstream changes are applied by the caller. */
  setConfig(config: Config): void {
    const modeChanged = config.registrationMode !== this.#config.registrationMode
    this.#config = config
    this.core.registry.setLimits(config.limits)
    if (modeChanged) this.#schedule('tools')
    this.#schedule('prompts')
  }

  onToolsChanged(fn: Listener): () => void {
    this.#toolListeners.add(fn)
    return () => this.#toolListeners.delete(fn)
  }

  /** Upstream log messages, and the gateway's own about upstreams, for relaying to clients. */
  onLog(fn: (upstream: string, params: LoggingMessageParams) => void): () => void {
    this.#logListeners.add(fn)
    return () => this.#logListeners.delete(fn)
  }

  /** Can this caller see this upstream (its site)? */
  canSee(caller: Caller, upstream: string): boolean {
    return this.core.registry.visible(caller).some((rt) => rt.config.name === upstream)
  }

  onPromptsChanged(fn: Listener): () => void {
    this.#promptListeners.add(fn)
    return () => this.#promptListeners.delete(fn)
  }

  listTools(session: SessionState, cursor?: string): { tools: Tool[]; nextCursor?: string } {
    const all = buildToolList(this.core, this.exposure, session)
    const offset = decodeCursor(cursor)
    const page = all.slice(offset, offset + TOOL_PAGE_SIZE)
    const next = offset + TOOL_PAGE_SIZE
    return next < all.length ? { tools: page, nextCursor: encodeCursor(next) } : { tools: page }
  }

  /** tools/call. Throws GatewayError('not_found') for a name this session cannot call. */
  async callTool(
    session: SessionState,
    name: string,
    args: Record<string, unknown> | undefined,
    call: CallContext,
  ): Promise<CallToolResult> {
    const mode = this.#config.registrationMode
    const meta = metaToolOf(name, mode)
    if (meta && this.core.registry.sitesOf(meta.app, session.caller).length > 0)
      return callMetaTool(this.core, session, meta, args, call)
    const split = splitNamespaced(name)
    const rt = split
      ? this.core.registry.visible(session.caller).find((r) => r.config.name === split.upstream)
      : undefined
    if (!split || !rt) throw new GatewayError('not_found', `Unknown tool: ${name}`)
    if (isUnifiApp(rt.config.app))
      return this.#callUnifiDirect(session, rt, rt.config.app, split.local, name, args, call)
    return this.#callGeneric(session, rt, split.local, name, args, call)
  }

  async #callUnifiDirect(
    session: SessionState,
    rt: UpstreamRuntime,
    app: UnifiApp,
    tool: string,
    exposed: string,
    args: Record<string, unknown> | undefined,
    call: CallContext,
  ): Promise<CallToolResult> {
    const mode = this.#config.registrationMode
    const p = APP_INFO[app].prefix
    if (mode === 'meta_only' || (mode === 'lazy' && !session.loaded.has(exposed)))
      throw new GatewayError(
        'not_found',
        `Unknown tool: ${exposed}. ${mode === 'lazy' ? `Load it first with ${p}_load_tools, or run it` : 'Run it'} with ${p}_execute {"tool": "${tool}", "site": "${rt.config.site}"}.`,
      )
    const entry = this.core.registry.entryAt(rt, tool)
    if (!entry) throw new GatewayError('not_found', `Unknown tool: ${exposed}`)
    const refusal = readOnlyRefusal(this.#config, rt.config, entry)
    if (refusal) return errorTextResult(refusal)
    return this.#relayDirect(session, rt, tool, !entry.readOnly, call, (conn, profile, opts) => {
      if (!profile) throw new Error(`upstream ${rt.config.name} is not ready`)
      return callDomainToolDirect(conn, profile, tool, args ?? {}, opts, call.meta)
    })
  }

  async #callGeneric(
    session: SessionState,
    rt: UpstreamRuntime,
    tool: string,
    exposed: string,
    args: Record<string, unknown> | undefined,
    call: CallContext,
  ): Promise<CallToolResult> {
    const def = rt.tools.find((t) => t.name === tool)
    if (rt.toolsGeneration >= 0 && !def)
      throw new GatewayError('not_found', `Unknown tool: ${exposed}`)
    // Anything not declared read-only is audited as a possible change (MCP spec: the
    // readOnlyHint default is false).
    const mutating = def?.annotations?.readOnlyHint !== true
    return this.#relayDirect(session, rt, tool, mutating, call, (conn, _profile, opts) =>
      callTool(
        conn,
        { name: tool, arguments: args ?? {}, ...(call.meta ? { meta: call.meta } : {}) },
        opts,
      ),
    )
  }

  /** A direct call relayed to one upstream under the limits. */
  async #relayDirect(
    session: SessionState,
    rt: UpstreamRuntime,
    tool: string,
    mutating: boolean,
    call: CallContext,
    work: UpstreamWork,
  ): Promise<CallToolResult> {
    try {
      return await callUpstream(
        this.core,
        rt,
        {
          tool,
          caller: session.caller.name,
          mutating,
          via: 'direct',
          isFailure: (r) => r.isError === true,
        },
        call.signal,
        progressForwarder(call),
        work,
      )
    } catch (err) {
      // The upstream's own JSON-RPC errors stay protocol errors; the gateway's failures to
      // reach it become tool errors the model can read.
      if (err instanceof McpError) throw err
      return errorTextResult(messageOf(err))
    }
  }

  listPrompts(caller: Caller, cursor?: string): { prompts: Prompt[]; nextCursor?: string } {
    const all = listExposedPrompts(this.core, this.exposure, caller).map((p) => p.prompt)
    const offset = decodeCursor(cursor)
    const next = offset + PROMPT_PAGE_SIZE
    const prompts = all.slice(offset, next)
    return next < all.length ? { prompts, nextCursor: encodeCursor(next) } : { prompts }
  }

  getPrompt(
    caller: Caller,
    name: string,
    args: Record<string, string> | undefined,
    call: CallContext,
  ): Promise<GetPromptResult> {
    return getExposedPrompt(this.core, this.exposure, caller, name, args, call)
  }

  upstreams(): PoolSnapshot[] {
    return this.core.registry.pool.snapshot()
  }

  exclusions(): Exclusion[] {
    return this.exposure.list()
  }

  async close(): Promise<void> {
    clearTimeout(this.#toolsTimer)
    clearTimeout(this.#promptsTimer)
    this.core.jobs.cancelAll('the gateway is shutting down')
    await this.core.registry.close()
  }

  /** Coalesce change notifications: many upstream events become one list_changed. */
  #schedule(what: 'tools' | 'prompts'): void {
    if (what === 'tools') {
      if (this.#toolsTimer) return
      this.#toolsTimer = setTimeout(() => {
        this.#toolsTimer = undefined
        for (const fn of this.#toolListeners) fn()
      }, 25)
    } else {
      if (this.#promptsTimer) return
      this.#promptsTimer = setTimeout(() => {
        this.#promptsTimer = undefined
        for (const fn of this.#promptListeners) fn()
      }, 25)
    }
  }
}
