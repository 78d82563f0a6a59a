import type { Logger } from '../core/logger.js'
import type { CallObserver, UpstreamCallRecord } from './context.js'

/**
 * One log line per upstream call, and an audit line for every call of a mutating tool
 * (who, what, where, outcome). Arguments are not logged: they may carry secrets.
 */
export function loggingObserver(log: Logger, next?: Partial<CallObserver>): CallObserver {
  return {
    upstreamCall(r: UpstreamCallRecord) {
      const fields = { ...r }
      if (r.outcome === 'ok') log.info('upstream call', fields)
      else log.warn('upstream call', fields)
      if (r.mutating)
        log.info('audit', {
          audit: true,
          who: r.caller,
          what: r.tool,
          where: { site: r.site, upstream: r.upstream },
          outcome: r.outcome,
          via: r.via,
        })
      next?.upstreamCall?.(r)
    },
    jobsChanged() {
      next?.jobsChanged?.()
    },
  }
}
