import pLimit, { type LimitFunction } from 'p-limit'
import type { Limits, UpstreamConfig } from '../config/schema.js'
import { GatewayError } from '../core/errors.js'
import type { Logger } from '../core/logger.js'
import { UpstreamConnection, type UpstreamListener, type UpstreamSnapshot } from './connection.js'

export type PoolSnapshot = UpstreamSnapshot & { enabled: boolean; inFlight: number; queued: number }

type Slot = { conn: UpstreamConnection; limit: LimitFunction; enabled: boolean }

export type ScheduleHooks = {
  /** The task got its slots and is about to run (a job turns from queued to running). */
  onStart?: () => void
  /** Checked when the slot is granted: a task cancelled while queued never runs. */
  signal?: AbortSignal
}

/**
 * Every upstream connection, and the two concurrency limits in front of them:
 * at most `perUpstreamConcurrency` calls per upstream and `concurrency` in all.
 * The per-upstream slot is taken first, so a slow site waits in its own queue
 * instead of holding global slots that other sites need.
 */
export class UpstreamPool {
  readonly #slots = new Map<string, Slot>()
  readonly #global: LimitFunction
  #limits: Limits
  readonly #log: Logger
  readonly #listener: UpstreamListener
  readonly #clientInfo: { name: string; version: string }

  constructor(opts: {
    limits: Limits
    log: Logger
    listener: UpstreamListener
    clientInfo: { name: string; version: string }
  }) {
    this.#limits = opts.limits
    this.#global = pLimit(opts.limits.concurrency)
    this.#log = opts.log
    this.#listener = opts.listener
    this.#clientInfo = opts.clientInfo
  }

  setLimits(limits: Limits): void {
    this.#limits = limits
    this.#global.concurrency = limits.concurrency
    for (const slot of this.#slots.values()) slot.limit.concurrency = limits.perUpstreamConcurrency
  }

  /** Add an upstream and start connecting it (unless disabled). */
  add(config: UpstreamConfig): UpstreamConnection {
    if (this.#slots.has(config.name))
      throw new GatewayError('conflict', `upstream ${config.name} already exists`)
    const conn = new UpstreamConnection(config, {
      log: this.#log,
      listener: this.#listener,
      clientInfo: this.#clientInfo,
      healthCheckIntervalMs: this.#limits.healthCheckIntervalMs,
      connectTimeoutMs: Math.min(this.#limits.callTimeoutMs, 15_000),
    })
    this.#slots.set(config.name, {
      conn,
      limit: pLimit(this.#limits.perUpstreamConcurrency),
      enabled: config.enabled,
    })
    if (config.enabled) conn.start()
    return conn
  }

  async remove(name: string): Promise<void> {
    const slot = this.#slots.get(name)
    if (!slot) return
    this.#slots.delete(name)
    slot.limit.clearQueue()
    await slot.conn.close()
  }

  get(name: string): UpstreamConnection | undefined {
    const slot = this.#slots.get(name)
    return slot?.enabled ? slot.conn : undefined
  }

  /** Enabled upstreams. */
  connections(): UpstreamConnection[] {
    return [...this.#slots.values()].filter((s) => s.enabled).map((s) => s.conn)
  }

  /** Run `task` when both an upstream slot and a global slot are free. */
  schedule<T>(upstream: string, task: () => Promise<T>, hooks: ScheduleHooks = {}): Promise<T> {
    const slot = this.#slots.get(upstream)
    if (!slot?.enabled)
      return Promise.reject(new GatewayError('unavailable', `upstream ${upstream} is not enabled`))
    return slot.limit(() =>
      this.#global(async () => {
        hooks.signal?.throwIfAborted()
        hooks.onStart?.()
        return task()
      }),
    )
  }

  load(upstream: string): { inFlight: number; queued: number } {
    const slot = this.#slots.get(upstream)
    return { inFlight: slot?.limit.activeCount ?? 0, queued: slot?.limit.pendingCount ?? 0 }
  }

  snapshot(): PoolSnapshot[] {
    return [...this.#slots.values()].map((s) => ({
      ...s.conn.snapshot(),
      ...(s.enabled ? {} : { status: 'down' as const, lastError: 'disabled' }),
      enabled: s.enabled,
      ...this.load(s.conn.name),
    }))
  }

  async close(): Promise<void> {
    const slots = [...this.#slots.values()]
    this.#slots.clear()
    await Promise.all(slots.map((s) => s.conn.close()))
  }
}
