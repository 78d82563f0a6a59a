import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js'
import { messageOf } from '../core/errors.js'
import type { UpstreamConnection } from '../upstream/connection.js'
import type { UnifiProfile } from '../upstream/unifi-upstream.js'
import type { CallContext, CallOutcome, GatewayCore } from './context.js'
import type { UpstreamRuntime } from './registry.js'
import { outcomeOf } from './results.js'

export type UpstreamWork = (
  conn: UpstreamConnection,
  profile: UnifiProfile | undefined,
  opts: { signal: AbortSignal; timeoutMs: number; onprogress?: (p: Progress) => void },
) => Promise<CallToolResult>

/**
 * One call to one upstream, under both concurrency limits, with the call timeout, the
 * caller's cancellation and progress forwarded, and one record for logs, audit and metrics.
 */
export async function callUpstream(
  core: GatewayCore,
  rt: UpstreamRuntime,
  what: {
    tool: string
    caller: string
    mutating: boolean
    via: 'execute' | 'batch' | 'direct'
    isFailure: (r: CallToolResult) => boolean
  },
  signal: AbortSignal,
  onProgress: ((p: Progress) => void) | undefined,
  work: UpstreamWork,
  onStart?: () => void,
): Promise<CallToolResult> {
  const started = performance.now()
  let outcome: CallOutcome = 'ok'
  let error: string | undefined
  try {
    const result = await core.registry.pool.schedule(
      rt.config.name,
      async () => {
        await core.registry.ensureLearned(rt)
        return work(rt.conn, rt.profile, {
          signal,
          timeoutMs: core.config().limits.callTimeoutMs,
          ...(onProgress ? { onprogress: onProgress } : {}),
        })
      },
      { signal, ...(onStart ? { onStart } : {}) },
    )
    if (what.isFailure(result)) outcome = 'error'
    return result
  } catch (err) {
    outcome = outcomeOf(err)
    error = messageOf(err)
    throw err
  } finally {
    core.observer.upstreamCall({
      upstream: rt.config.name,
      site: rt.config.site,
      tool: what.tool,
      caller: what.caller,
      mutating: what.mutating,
      via: what.via,
      outcome,
      ms: Math.round(performance.now() - started),
      ...(error !== undefined ? { error } : {}),
    })
  }
}

export function progressForwarder(call: CallContext): ((p: Progress) => void) | undefined {
  const send = call.sendProgress
  if (!send) return undefined
  return (p) => {
    send({
      progress: p.progress,
      ...(p.total !== undefined ? { total: p.total } : {}),
      ...(p.message !== undefined ? { message: p.message } : {}),
    }).catch(() => {
      // The client went away; the call itself carries on or is cancelled by its signal.
    })
  }
}
