import { randomBytes } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { Caller } from '../core/caller.js'
import { GatewayError } from '../core/errors.js'

export type JobStatus = 'queued' | 'running' | 'done' | 'error' | 'cancelled'
export const TERMINAL: ReadonlySet<JobStatus> = new Set(['done', 'error', 'cancelled'])

export type JobProgress = { progress: number; total?: number; message?: string }

export type Job = {
  readonly id: string
  /** The client token that started the job; nobody else can see it. */
  readonly owner: string
  readonly tool: string
  readonly site?: string
  status: JobStatus
  readonly createdAt: number
  startedAt?: number
  completedAt?: number
  result: unknown
  error: string | null
  progress?: JobProgress
  /** Aborted when the job is cancelled: the running upstream request is cancelled with it. */
  readonly controller: AbortController
  /** Resolves once the job is terminal. */
  readonly settled: Promise<void>
}

type Internal = Job & { resolve: () => void }

export type JobLimits = { maxQueuedJobs: number; jobRetentionMs: number; maxRetainedJobs: number }

/** A clock, injectable so that retention can be tested without waiting an hour. */
export type Clock = () => number

export type StatusDict =
  | {
      status: JobStatus
      started: number
      result: unknown
      error: string | null
      completed?: number
      tool: string
      site?: string
      progress?: JobProgress
    }
  | { status: 'unknown' }

const seconds = (ms: number) => ms / 1000

/**
 * Jobs started by `*_batch`. Queued and running jobs live in a map bounded by
 * `maxQueuedJobs` and are never evicted; finished jobs move to an LRU cache that keeps
 * at most `maxRetainedJobs` of them for `jobRetentionMs` (upstream issue #502 fixed an
 * unbounded store; this keeps the same policy and adds ownership and cancellation).
 */
export class JobStore {
  readonly #active = new Map<string, Internal>()
  readonly #finished: LRUCache<string, Internal>
  #limits: JobLimits
  #counts = { created: 0, done: 0, error: 0, cancelled: 0 }
  readonly #now: Clock
  /** Told when a job reaches a terminal status (metrics). */
  onFinish?: (status: JobStatus) => void

  constructor(limits: JobLimits, now: Clock = Date.now) {
    this.#limits = limits
    this.#now = now
    this.#finished = new LRUCache<string, Internal>({
      max: limits.maxRetainedJobs,
      ttl: limits.jobRetentionMs,
      ttlAutopurge: false,
      updateAgeOnGet: false,
      perf: { now },
    })
  }

  get activeCount(): number {
    return this.#active.size
  }

  /** How many more jobs may be queued right now. */
  capacity(): number {
    return Math.max(0, this.#limits.maxQueuedJobs - this.#active.size)
  }

  stats(): Record<JobStatus, number> & { retained: number; created: number } {
    let queued = 0
    let running = 0
    for (const job of this.#active.values()) job.status === 'queued' ? queued++ : running++
    return {
      queued,
      running,
      done: this.#counts.done,
      error: this.#counts.error,
      cancelled: this.#counts.cancelled,
      retained: this.#finished.size,
      created: this.#counts.created,
    }
  }

  create(owner: string, tool: string, site?: string): Job {
    if (this.capacity() < 1)
      throw new GatewayError(
        'limit',
        `the gateway already has ${this.#active.size} queued or running jobs (limits.maxQueuedJobs = ${this.#limits.maxQueuedJobs}); wait for some to finish`,
      )
    let resolve!: () => void
    const settled = new Promise<void>((r) => {
      resolve = r
    })
    const job: Internal = {
      id: randomBytes(8).toString('hex'),
      owner,
      tool,
      ...(site !== undefined ? { site } : {}),
      status: 'queued',
      createdAt: this.#now(),
      result: null,
      error: null,
      controller: new AbortController(),
      settled,
      resolve,
    }
    this.#active.set(job.id, job)
    this.#counts.created++
    return job
  }

  markRunning(job: Job): void {
    if (job.status !== 'queued') return
    job.status = 'running'
    job.startedAt = this.#now()
  }

  setProgress(job: Job, progress: JobProgress): void {
    if (!TERMINAL.has(job.status)) job.progress = progress
  }

  succeed(job: Job, result: unknown): void {
    this.#finish(job, 'done', result, null)
  }

  fail(job: Job, error: string): void {
    this.#finish(job, 'error', null, error)
  }

  /** Cancel a queued or running job of this caller. Returns the job's status afterwards. */
  cancel(caller: Caller, id: string, reason: string): JobStatus | 'unknown' {
    const job = this.#lookup(caller, id)
    if (!job) return 'unknown'
    if (TERMINAL.has(job.status)) return job.status
    this.#finish(job, 'cancelled', null, reason)
    job.controller.abort(new GatewayError('cancelled', reason))
    return 'cancelled'
  }

  /** A job of this caller, or undefined (also when it belongs to another token). */
  get(caller: Caller, id: string): Job | undefined {
    return this.#lookup(caller, id)
  }

  statusOf(caller: Caller, id: string): StatusDict {
    const job = this.#lookup(caller, id)
    return job ? toStatusDict(job) : { status: 'unknown' }
  }

  /** Wait until every listed job of this caller is terminal, at most `ms`. */
  async waitFor(
    caller: Caller,
    ids: readonly string[],
    ms: number,
    signal?: AbortSignal,
    onSettled?: (finished: number, total: number) => void,
  ): Promise<void> {
    const jobs = ids.map((id) => this.#lookup(caller, id)).filter((j): j is Internal => !!j)
    const pending = jobs.filter((j) => !TERMINAL.has(j.status))
    if (pending.length === 0 || ms <= 0) return
    let finished = jobs.length - pending.length
    const all = Promise.all(
      pending.map((j) =>
        j.settled.then(() => {
          finished++
          onSettled?.(finished, jobs.length)
        }),
      ),
    )
    let timer: NodeJS.Timeout | undefined
    let onAbort: (() => void) | undefined
    const stop = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms)
      onAbort = () => resolve()
      signal?.addEventListener('abort', onAbort, { once: true })
    })
    try {
      await Promise.race([all, stop])
    } finally {
      clearTimeout(timer)
      if (onAbort) signal?.removeEventListener('abort', onAbort)
    }
  }

  /** Cancel everything still queued or running (shutdown after the grace period). */
  cancelAll(reason: string): number {
    let n = 0
    for (const job of [...this.#active.values()]) {
      this.#finish(job, 'cancelled', null, reason)
      job.controller.abort(new GatewayError('cancelled', reason))
      n++
    }
    return n
  }

  /** Resolves when no job is queued or running, or after `ms`. */
  async drain(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms
    while (this.#active.size > 0 && Date.now() < deadline) {
      const jobs = [...this.#active.values()].map((j) => j.settled)
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        Promise.all(jobs),
        new Promise<void>((r) => {
          timer = setTimeout(r, Math.max(0, deadline - Date.now()))
        }),
      ])
      clearTimeout(timer)
    }
    return this.#active.size === 0
  }

  #lookup(caller: Caller, id: string): Internal | undefined {
    const job = this.#active.get(id) ?? this.#finished.get(id)
    return job && job.owner === caller.name ? job : undefined
  }

  #finish(job: Job, status: JobStatus, result: unknown, error: string | null): void {
    const internal = this.#active.get(job.id)
    if (!internal || TERMINAL.has(internal.status)) return
    internal.status = status
    internal.result = result
    internal.error = error
    internal.completedAt = this.#now()
    internal.startedAt ??= internal.completedAt
    this.#counts[status as 'done' | 'error' | 'cancelled']++
    this.#active.delete(job.id)
    this.#finished.set(job.id, internal)
    internal.resolve()
    this.onFinish?.(status)
  }
}

/** The upstream's status dict (reference §3.4), plus which tool and site the job ran. */
export function toStatusDict(job: Job): StatusDict {
  const terminal = TERMINAL.has(job.status)
  return {
    status: job.status,
    started: seconds(job.createdAt),
    result: job.result ?? null,
    error: job.error,
    ...(terminal && job.completedAt !== undefined ? { completed: seconds(job.completedAt) } : {}),
    tool: job.tool,
    ...(job.site !== undefined ? { site: job.site } : {}),
    ...(!terminal && job.progress ? { progress: job.progress } : {}),
  }
}
