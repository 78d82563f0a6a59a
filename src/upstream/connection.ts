import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  LoggingMessageNotificationSchema,
  type Progress,
  PromptListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import type { UpstreamConfig } from '../config/schema.js'
import { backoffDelay } from '../core/backoff.js'
import { GatewayError, isGatewayError, messageOf } from '../core/errors.js'
import type { Logger } from '../core/logger.js'
import {
  type CallOptions,
  type ConnectionOptions,
  isTransportFailure,
  neverReachedUpstream,
  type Session,
  type UpstreamSnapshot,
  type UpstreamStatus,
} from './connection-types.js'
import { createUpstreamTransport } from './transports.js'

export type {
  CallOptions,
  ConnectionOptions,
  LoggingMessageParams,
  UpstreamListener,
  UpstreamSnapshot,
  UpstreamStatus,
} from './connection-types.js'

/**
 * One long-lived MCP client session to one upstream. It connects in the background,
 * re-establishes itself with backoff when the upstream restarts, drops the session on a
 * 404 (session lost upstream) and retries that request once, and fails the calls that were
 * running on a connection that died with a message naming the upstream. It never throws
 * out of a background path: a dead upstream only ever shows up as a state and as errors
 * returned to the calls that needed it.
 */
export class UpstreamConnection {
  readonly config: UpstreamConfig
  readonly #opts: Required<Omit<ConnectionOptions, 'log' | 'listener' | 'clientInfo'>> &
    ConnectionOptions
  readonly #log: Logger
  #status: UpstreamStatus = 'down'
  #session: Session | undefined
  #connecting: Promise<Session> | undefined
  #generation = 0
  #attempt = 0
  #retryTimer: NodeJS.Timeout | undefined
  #healthTimer: NodeJS.Timeout | undefined
  #lastAttemptAt = 0
  #lastError: string | null = null
  #connectedAt: number | null = null
  #lastOkAt: number | null = null
  #latencyMs: number | null = null
  #reconnects = 0
  #everConnected = false
  #verifying = false
  readonly #stderrTail: string[] = []

  constructor(config: UpstreamConfig, opts: ConnectionOptions) {
    this.config = config
    this.#opts = {
      connectTimeoutMs: 10_000,
      healthCheckIntervalMs: 30_000,
      minRetryGapMs: 250,
      ...opts,
    }
    this.#log = opts.log.child({ upstream: config.name })
  }

  get name(): string {
    return this.config.name
  }
  get status(): UpstreamStatus {
    return this.#status
  }
  get connected(): boolean {
    return this.#status === 'connected'
  }
  /** Increments on every new session: what was learned from an older session is stale. */
  get generation(): number {
    return this.#session?.generation ?? -1
  }
  get serverCapabilities() {
    return this.#session?.client.getServerCapabilities()
  }

  /** Start connecting in the background and keep the connection healthy. */
  start(): void {
    this.#connectInBackground()
    this.#healthTimer = setInterval(() => this.#healthCheck(), this.#opts.healthCheckIntervalMs)
    this.#healthTimer.unref()
  }

  /** Resolves once the first connection attempt has finished, either way (bounded). */
  async ready(timeoutMs: number): Promise<boolean> {
    const pending = this.#connecting
    if (!pending) return this.connected
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs)
    })
    await Promise.race([
      pending.then(
        () => undefined,
        () => undefined,
      ),
      timeout,
    ])
    clearTimeout(timer)
    return this.connected
  }

  snapshot(): UpstreamSnapshot {
    const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString())
    const version = this.#session?.client.getServerVersion()
    const transport = this.#session?.transport as { protocolVersion?: string } | undefined
    return {
      name: this.config.name,
      site: this.config.site,
      app: this.config.app,
      transport: this.config.transport,
      status: this.#status,
      lastError: this.#lastError,
      connectedAt: iso(this.#connectedAt),
      lastOkAt: iso(this.#lastOkAt),
      latencyMs: this.#latencyMs,
      reconnects: this.#reconnects,
      serverName: version?.name ?? null,
      protocolVersion: transport?.protocolVersion ?? null,
    }
  }

  /**
   * Run one request on the upstream session. `what` names the request in errors
   * ("tools/call unifi_execute"). Timeouts, the caller's cancellation and a lost connection
   * all abort the SDK request, which sends notifications/cancelled upstream.
   */
  async request<T>(
    what: string,
    op: (client: Client, signal: AbortSignal, onprogress?: (p: Progress) => void) => Promise<T>,
    opts: CallOptions,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      opts.signal?.throwIfAborted()
      const session = await this.#sessionForCall()
      const ac = new AbortController()
      session.inFlight.add(ac)
      let timer: NodeJS.Timeout | undefined
      const arm = () => {
        clearTimeout(timer)
        timer = setTimeout(
          () =>
            ac.abort(
              new GatewayError(
                'timeout',
                `upstream ${this.name} did not answer ${what}: timed out after ${opts.timeoutMs} ms (limits.callTimeoutMs); the request was cancelled upstream`,
              ),
            ),
          opts.timeoutMs,
        )
      }
      const onAbort = () =>
        ac.abort(
          isGatewayError(opts.signal?.reason)
            ? opts.signal?.reason
            : new GatewayError(
                'cancelled',
                `${what} on upstream ${this.name} was cancelled by the client`,
              ),
        )
      opts.signal?.addEventListener('abort', onAbort, { once: true })
      arm()
      const onprogress = opts.onprogress
        ? (p: Progress) => {
            arm()
            opts.onprogress?.(p)
          }
        : undefined
      try {
        const result = await op(session.client, ac.signal, onprogress)
        this.#lastOkAt = Date.now()
        return result
      } catch (err) {
        if (ac.signal.aborted && isGatewayError(ac.signal.reason)) throw ac.signal.reason
        if (isTransportFailure(err)) {
          const reason = messageOf(err)
          this.#lost(session.generation, reason)
          if (attempt === 0 && neverReachedUpstream(err)) {
            this.#log.info('session lost upstream; re-initialising and retrying once', {
              what,
              reason,
            })
            continue
          }
          throw new GatewayError(
            'upstream',
            `the connection to upstream ${this.name} was lost during ${what} (${reason}); the gateway is reconnecting`,
            { cause: err },
          )
        }
        throw err
      } finally {
        clearTimeout(timer)
        opts.signal?.removeEventListener('abort', onAbort)
        session.inFlight.delete(ac)
      }
    }
  }

  /** Round-trip check used by health checks; updates latency. */
  async ping(timeoutMs = 5_000): Promise<number> {
    const started = performance.now()
    await this.request('ping', (client, signal) => client.ping({ signal }), { timeoutMs })
    this.#latencyMs = Math.round((performance.now() - started) * 10) / 10
    return this.#latencyMs
  }

  async close(): Promise<void> {
    this.#status = 'closed'
    clearTimeout(this.#retryTimer)
    clearInterval(this.#healthTimer)
    const session = this.#session ?? (await this.#connecting?.catch(() => undefined))
    this.#session = undefined
    if (session) await this.#closeSession(session, 'the gateway is closing this upstream')
  }

  // ---- connection management -------------------------------------------------------------

  async #sessionForCall(): Promise<Session> {
    if (this.#status === 'closed')
      throw new GatewayError(
        'unavailable',
        `upstream ${this.name} has been removed from the gateway`,
      )
    if (this.#session) return this.#session
    if (this.#connecting) return this.#connecting
    // Calls reconnect on demand (one shared attempt at a time), but not in a tight loop.
    const wait = this.#opts.minRetryGapMs - (Date.now() - this.#lastAttemptAt)
    if (wait > 0) {
      await new Promise((r) => setTimeout(r, wait))
      if (this.#session) return this.#session
      if (this.#connecting) return this.#connecting
      if ((this.#status as UpstreamStatus) === 'closed') throw this.#unreachable()
    }
    return this.#connect()
  }

  #unreachable(): GatewayError {
    return new GatewayError(
      'unavailable',
      `upstream ${this.name} (site ${this.config.site}) is unreachable: ${this.#lastError ?? 'not connected yet'}. The gateway keeps reconnecting in the background; try again shortly${this.config.app === 'generic' ? '' : ', or use another site'}.`,
    )
  }

  #connectInBackground(): void {
    if (this.#session || this.#connecting || this.#status === 'closed') return
    this.#connect().catch(() => {
      // Already logged and scheduled for retry by #connect.
    })
  }

  #connect(): Promise<Session> {
    clearTimeout(this.#retryTimer)
    this.#retryTimer = undefined
    this.#status = 'connecting'
    this.#lastAttemptAt = Date.now()
    const generation = ++this.#generation
    const attempt = this.#doConnect(generation).then(
      (session) => {
        this.#connecting = undefined
        return session
      },
      (err) => {
        this.#connecting = undefined
        throw err
      },
    )
    this.#connecting = attempt
    return attempt
  }

  async #doConnect(generation: number): Promise<Session> {
    const started = performance.now()
    const { transport, stderr } = createUpstreamTransport(this.config)
    const client = new Client(this.#opts.clientInfo, { capabilities: {} })
    const session: Session = { client, transport, generation, inFlight: new Set(), closing: false }
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (this.#session === session) this.#opts.listener.toolsChanged(this)
    })
    client.setNotificationHandler(PromptListChangedNotificationSchema, async () => {
      if (this.#session === session) this.#opts.listener.promptsChanged(this)
    })
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => {
      if (this.#session === session) this.#opts.listener.logMessage?.(this, n.params)
    })
    // Set before connect(): the SDK chains its own handlers after these.
    transport.onclose = () => {
      if (!session.closing) this.#lost(generation, this.#exitReason('the connection closed'))
    }
    transport.onerror = (err) => {
      if (session.closing || this.#session !== session) return
      const msg = messageOf(err)
      if (/SSE stream disconnected|Failed to reconnect|Maximum reconnection/.test(msg))
        this.#verify(session, msg)
    }
    stderr?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue
        this.#stderrTail.push(line)
        if (this.#stderrTail.length > 20) this.#stderrTail.shift()
        this.#log.debug('upstream stderr', { line })
      }
    })
    try {
      await client.connect(transport, { timeout: this.#opts.connectTimeoutMs })
    } catch (err) {
      session.closing = true
      await client.close().catch(() => {})
      const reason = this.#exitReason(messageOf(err))
      this.#markDown(reason)
      throw new GatewayError('unavailable', this.#unreachable().message, { cause: err })
    }
    if (this.#status === 'closed') {
      session.closing = true
      await client.close().catch(() => {})
      throw new GatewayError(
        'unavailable',
        `upstream ${this.name} has been removed from the gateway`,
      )
    }
    this.#session = session
    this.#status = 'connected'
    this.#attempt = 0
    this.#lastError = null
    this.#connectedAt = Date.now()
    this.#lastOkAt = this.#connectedAt
    this.#latencyMs = Math.round((performance.now() - started) * 10) / 10
    if (this.#everConnected) this.#reconnects++
    this.#everConnected = true
    const version = client.getServerVersion()
    this.#log.info('upstream connected', {
      server: version ? `${version.name} ${version.version}` : 'unknown',
      reconnects: this.#reconnects,
    })
    this.#opts.listener.connected(this)
    return session
  }

  #exitReason(fallback: string): string {
    const tail = this.#stderrTail.slice(-3).join(' | ')
    return this.config.transport === 'stdio' && tail
      ? `${fallback}; last stderr: ${tail}`
      : fallback
  }

  #markDown(reason: string): void {
    if (this.#status === 'closed') return
    const wasUp = this.#status === 'connected'
    this.#status = 'down'
    this.#lastError = reason
    const delay = backoffDelay(this.#attempt++, 500, 30_000)
    this.#log[wasUp || this.#attempt <= 1 ? 'warn' : 'debug']('upstream down', {
      reason,
      retryInMs: delay,
    })
    clearTimeout(this.#retryTimer)
    this.#retryTimer = setTimeout(() => this.#connectInBackground(), delay)
    this.#retryTimer.unref()
  }

  /** A stream broke: ask the upstream whether the session is still alive before dropping it. */
  #verify(session: Session, why: string): void {
    if (this.#verifying) return
    this.#verifying = true
    session.client
      .ping({ timeout: 3_000 })
      .then(() => this.#log.debug('stream error, but the upstream still answers', { why }))
      .catch((err) => this.#lost(session.generation, `${why}; ping failed: ${messageOf(err)}`))
      .finally(() => {
        this.#verifying = false
      })
  }

  #lost(generation: number, reason: string): void {
    const session = this.#session
    if (!session || session.generation !== generation) return
    this.#session = undefined
    void this.#closeSession(session, `the connection to upstream ${this.name} was lost (${reason})`)
    this.#markDown(reason)
    this.#opts.listener.disconnected(this, reason)
  }

  async #closeSession(session: Session, why: string): Promise<void> {
    session.closing = true
    for (const ac of session.inFlight)
      ac.abort(new GatewayError('upstream', `${why}; the call did not complete`))
    session.inFlight.clear()
    try {
      await session.client.close()
    } catch (err) {
      this.#log.debug('error while closing an upstream session', { err: messageOf(err) })
    }
  }

  #healthCheck(): void {
    if (this.#status === 'closed' || this.#connecting) return
    if (!this.#session) {
      if (!this.#retryTimer) this.#connectInBackground()
      return
    }
    const session = this.#session
    this.ping(Math.min(5_000, this.#opts.healthCheckIntervalMs)).catch((err) => {
      if (this.#session === session)
        this.#lost(session.generation, `health check failed: ${messageOf(err)}`)
    })
  }
}
