import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { McpError, type Progress } from '@modelcontextprotocol/sdk/types.js'
import { messageOf } from '../core/errors.js'
import type { Logger } from '../core/logger.js'
import type { UpstreamConnection } from './connection.js'

export type UpstreamStatus = 'connecting' | 'connected' | 'down' | 'closed'

export type UpstreamSnapshot = {
  name: string
  site: string
  app: string
  transport: string
  status: UpstreamStatus
  lastError: string | null
  connectedAt: string | null
  lastOkAt: string | null
  latencyMs: number | null
  reconnects: number
  serverName: string | null
  protocolVersion: string | null
}

export type CallOptions = {
  /** Aborts the upstream request (sent upstream as notifications/cancelled). */
  signal?: AbortSignal
  /** Longest wait for an answer; a progress notification restarts the clock. */
  timeoutMs: number
  onprogress?: (progress: Progress) => void
}

export interface UpstreamListener {
  connected(conn: UpstreamConnection): void
  disconnected(conn: UpstreamConnection, reason: string): void
  toolsChanged(conn: UpstreamConnection): void
  promptsChanged(conn: UpstreamConnection): void
  /** A notifications/message (log) the upstream sent. */
  logMessage?(conn: UpstreamConnection, params: LoggingMessageParams): void
}

export type LoggingMessageParams = { level: string; logger?: string | undefined; data?: unknown }

export type ConnectionOptions = {
  log: Logger
  listener: UpstreamListener
  clientInfo: { name: string; version: string }
  connectTimeoutMs?: number
  healthCheckIntervalMs?: number
  /** Calls made while an upstream is down try to reconnect at most this often. */
  minRetryGapMs?: number
}

export type Session = {
  client: Client
  transport: Transport
  generation: number
  inFlight: Set<AbortController>
  closing: boolean
}

/** True when the request certainly never ran upstream, so it may be sent again once. */
export function neverReachedUpstream(err: unknown): boolean {
  if (err instanceof StreamableHTTPError) return err.code === 404
  const msg = messageOf(err)
  return msg === 'Not connected' || /ECONNREFUSED|ECONNRESET before|socket hang up/.test(msg)
}

export function isTransportFailure(err: unknown): boolean {
  if (err instanceof StreamableHTTPError) return err.code === 404 || err.code === -1
  if (err instanceof McpError) return err.code === -32000 && /Connection closed/.test(err.message)
  const msg = messageOf(err)
  return /Not connected|ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|fetch failed|terminated/.test(
    msg,
  )
}
