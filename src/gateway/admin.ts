import { issuesFromZod } from '../config/issues.js'
import {
  type Config,
  type UpstreamConfig,
  UpstreamEntrySchema,
  type UpstreamInput,
} from '../config/schema.js'
import type { StateStore } from '../config/state-file.js'
import { isUnifiApp } from '../core/apps.js'
import { GatewayError } from '../core/errors.js'
import type { Logger } from '../core/logger.js'
import type { Gateway } from './gateway.js'

export type Source = 'config' | 'registered'

/** An upstream as the admin API shows it: no secret values (tokens, header and env values). */
export type ServerView = {
  name: string
  description?: string
  site: string
  app: string
  transport: string
  source: Source
  enabled: boolean
  readOnly?: boolean
  status: string
  lastError: string | null
  latencyMs: number | null
  url?: string
  command?: string
  headerNames?: string[]
  envNames?: string[]
  hasBearerToken?: boolean
  tools: number
  prompts: number
}

type Entry = { base: UpstreamConfig; input: UpstreamInput; source: Source }

/** `https://user:pass@host/mcp?key=x` → `https://host/mcp`: credentials can hide in URLs. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname}`
  } catch {
    return '(invalid URL)'
  }
}

/**
 * Run-time registration of upstreams (MCPJungle's register/deregister/enable/disable), kept
 * in the state file. Config-file upstreams stay declarative: they can be disabled and
 * enabled (persisted as an override) but not replaced or removed here. Operations run one at
 * a time; each is durable before it is acknowledged.
 */
export class UpstreamAdmin {
  readonly #gateway: Gateway
  readonly #store: StateStore
  readonly #log: Logger
  readonly #entries = new Map<string, Entry>()
  #config: Config
  #lock: Promise<unknown> = Promise.resolve()

  constructor(opts: { gateway: Gateway; store: StateStore; config: Config; log: Logger }) {
    this.#gateway = opts.gateway
    this.#store = opts.store
    this.#config = opts.config
    this.#log = opts.log
  }

  /** Add the config's upstreams and the registered ones from the state file. */
  start(): void {
    for (const u of this.#config.upstreams)
      this.#entries.set(u.name, { base: u, input: u, source: 'config' })
    for (const input of this.#store.state.servers) {
      const parsed = UpstreamEntrySchema.parse(input)
      if (this.#entries.has(parsed.name)) {
        this.#log.warn(
          'a registered upstream has the name of a config-file upstream; the config file wins',
          { upstream: parsed.name },
        )
        continue
      }
      this.#entries.set(parsed.name, { base: parsed, input, source: 'registered' })
    }
    for (const entry of this.#entries.values()) this.#gateway.addUpstream(this.#effective(entry))
  }

  list(): ServerView[] {
    return [...this.#entries.values()]
      .sort((a, b) => (a.base.name < b.base.name ? -1 : 1))
      .map((e) => this.#view(e))
  }

  view(name: string): ServerView {
    const entry = this.#entries.get(name)
    if (!entry) throw new GatewayError('not_found', `no upstream named "${name}"`)
    return this.#view(entry)
  }

  /** Register an upstream; with `force`, replace a registered one of the same name. */
  register(body: unknown, force: boolean): Promise<{ view: ServerView; replaced: boolean }> {
    return this.#exclusive(async () => {
      const parsed = UpstreamEntrySchema.safeParse(body)
      if (!parsed.success)
        throw new GatewayError(
          'invalid_input',
          `invalid server: ${issuesFromZod(parsed.error)
            .map((i) => `${i.path || '(body)'}: ${i.message}`)
            .join('; ')}`,
        )
      const config = parsed.data
      if (config.transport === 'stdio' && !this.#config.admin.allowStdioRegistration)
        throw new GatewayError(
          'forbidden',
          'registering stdio upstreams over the admin API is disabled (it runs a command on the gateway host); put it in the config file, or set "admin": {"allowStdioRegistration": true}',
        )
      const existing = this.#entries.get(config.name)
      if (existing?.source === 'config')
        throw new GatewayError(
          'conflict',
          `upstream "${config.name}" is defined in the config file; change it there`,
        )
      if (existing && !force)
        throw new GatewayError(
          'conflict',
          `upstream "${config.name}" is already registered; use force to replace it`,
        )
      if (isUnifiApp(config.app)) {
        const slot = [...this.#entries.values()].find(
          (e) =>
            e.base.name !== config.name && e.base.site === config.site && e.base.app === config.app,
        )
        if (slot)
          throw new GatewayError(
            'conflict',
            `site "${config.site}" already has a ${config.app} upstream (${slot.base.name})`,
          )
      }
      const input = body as UpstreamInput
      await this.#store.update((s) => ({
        ...s,
        servers: [...s.servers.filter((x) => x.name !== config.name), input],
        overrides: Object.fromEntries(
          Object.entries(s.overrides).filter(([n]) => n !== config.name),
        ),
      }))
      if (existing) await this.#gateway.removeUpstream(config.name)
      const entry: Entry = { base: config, input, source: 'registered' }
      this.#entries.set(config.name, entry)
      this.#gateway.addUpstream(config)
      await this.#gateway.ready(10_000, [config.name])
      this.#log.info(existing ? 'upstream replaced' : 'upstream registered', {
        upstream: config.name,
        site: config.site,
        app: config.app,
      })
      return { view: this.#view(entry), replaced: existing !== undefined }
    })
  }

  deregister(name: string): Promise<void> {
    return this.#exclusive(async () => {
      const entry = this.#entries.get(name)
      if (!entry) throw new GatewayError('not_found', `no upstream named "${name}"`)
      if (entry.source === 'config')
        throw new GatewayError(
          'conflict',
          `upstream "${name}" is defined in the config file; remove it there (or disable it)`,
        )
      await this.#store.update((s) => ({
        ...s,
        servers: s.servers.filter((x) => x.name !== name),
        overrides: Object.fromEntries(Object.entries(s.overrides).filter(([n]) => n !== name)),
      }))
      this.#entries.delete(name)
      await this.#gateway.removeUpstream(name)
      this.#log.info('upstream deregistered', { upstream: name })
    })
  }

  setEnabled(
    name: string,
    enabled: boolean,
  ): Promise<{ name: string; enabled: boolean; tools_affected: number; prompts_affected: number }> {
    return this.#exclusive(async () => {
      const entry = this.#entries.get(name)
      if (!entry) throw new GatewayError('not_found', `no upstream named "${name}"`)
      const before = this.#view(entry)
      await this.#store.update((s) => ({
        ...s,
        overrides: { ...s.overrides, [name]: { enabled } },
      }))
      await this.#gateway.removeUpstream(name)
      this.#gateway.addUpstream(this.#effective(entry))
      if (enabled) await this.#gateway.ready(10_000, [name])
      const after = this.#view(entry)
      this.#log.info(enabled ? 'upstream enabled' : 'upstream disabled', { upstream: name })
      return {
        name,
        enabled,
        tools_affected: Math.max(before.tools, after.tools),
        prompts_affected: Math.max(before.prompts, after.prompts),
      }
    })
  }

  /**
   * A new config file (SIGHUP): add, remove and replace config-file upstreams by name;
   * unchanged ones keep their connection. Registered upstreams are untouched.
   */
  reload(next: Config): Promise<{ added: string[]; removed: string[]; changed: string[] }> {
    return this.#exclusive(async () => {
      const clash = next.upstreams.find((u) => this.#entries.get(u.name)?.source === 'registered')
      if (clash)
        throw new GatewayError(
          'conflict',
          `the new config defines "${clash.name}", which is registered at run time; deregister it first`,
        )
      const result = { added: [] as string[], removed: [] as string[], changed: [] as string[] }
      const wanted = new Map(next.upstreams.map((u) => [u.name, u]))
      for (const [name, entry] of [...this.#entries]) {
        if (entry.source !== 'config' || wanted.has(name)) continue
        this.#entries.delete(name)
        await this.#gateway.removeUpstream(name)
        result.removed.push(name)
      }
      this.#config = next
      for (const [name, u] of wanted) {
        const old = this.#entries.get(name)
        if (old && JSON.stringify(old.base) === JSON.stringify(u)) continue
        const entry: Entry = { base: u, input: u, source: 'config' }
        if (old) await this.#gateway.removeUpstream(name)
        this.#entries.set(name, entry)
        this.#gateway.addUpstream(this.#effective(entry))
        ;(old ? result.changed : result.added).push(name)
      }
      return result
    })
  }

  #effective(entry: Entry): UpstreamConfig {
    const override = this.#store.state.overrides[entry.base.name]
    return override ? { ...entry.base, enabled: override.enabled } : entry.base
  }

  #view(entry: Entry): ServerView {
    const c = this.#effective(entry)
    const snap = this.#gateway.upstreams().find((u) => u.name === c.name)
    const rt = this.#gateway.core.registry.get(c.name)
    const tools = rt ? (rt.served?.tools.size ?? rt.tools.length) : 0
    return {
      name: c.name,
      ...(c.description ? { description: c.description } : {}),
      site: c.site,
      app: c.app,
      transport: c.transport,
      source: entry.source,
      enabled: c.enabled,
      ...(c.readOnly !== undefined ? { readOnly: c.readOnly } : {}),
      status: c.enabled ? (snap?.status ?? 'down') : 'disabled',
      lastError: c.enabled ? (snap?.lastError ?? null) : null,
      latencyMs: snap?.latencyMs ?? null,
      ...(c.transport === 'streamable_http'
        ? {
            url: safeUrl(c.url),
            headerNames: Object.keys(c.headers),
            hasBearerToken: c.bearer_token !== undefined,
          }
        : { command: c.command, envNames: Object.keys(c.env) }),
      tools,
      prompts: rt?.prompts.length ?? 0,
    }
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(work)
    this.#lock = run.catch(() => undefined)
    return run
  }
}
