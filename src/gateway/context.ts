import type { Config } from '../config/schema.js'
import type { Caller } from '../core/caller.js'
import type { Logger } from '../core/logger.js'
import type { JobStore } from '../jobs/job-store.js'
import type { CapturedMetaTools } from './meta/definitions.js'
import type { UpstreamRegistry } from './registry.js'

/** One downstream MCP session, as the services see it. */
export type SessionState = {
  readonly id: string
  readonly caller: Caller
  /** `<upstream>__<tool>` names this session loaded with `*_load_tools` (lazy mode). */
  readonly loaded: Set<string>
  notifyToolsChanged(): void
}

export type ProgressUpdate = { progress: number; total?: number; message?: string }

/** The downstream request a tool call belongs to: its cancellation and its progress channel. */
export type CallContext = {
  readonly signal: AbortSignal
  /** Present when the client asked for progress (`_meta.progressToken`). */
  readonly sendProgress?: (p: ProgressUpdate) => Promise<void>
  /** Request `_meta` to forward to an upstream on direct calls (progressToken removed). */
  readonly meta?: Record<string, unknown>
}

export type CallOutcome = 'ok' | 'error' | 'timeout' | 'cancelled' | 'refused' | 'unavailable'

export type UpstreamCallRecord = {
  upstream: string
  site: string
  tool: string
  caller: string
  mutating: boolean
  via: 'execute' | 'batch' | 'direct'
  outcome: CallOutcome
  ms: number
  error?: string
}

/** Sink for what happened on each upstream call: logs, audit lines, metrics. */
export interface CallObserver {
  upstreamCall(record: UpstreamCallRecord): void
  jobsChanged?(): void
}

export type GatewayCore = {
  config(): Config
  readonly registry: UpstreamRegistry
  readonly jobs: JobStore
  readonly captured: CapturedMetaTools
  readonly log: Logger
  readonly observer: CallObserver
}
