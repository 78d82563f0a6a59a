import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { CallObserver, UpstreamCallRecord } from '../gateway/context.js'
import type { Gateway } from '../gateway/gateway.js'

/**
 * Prometheus metrics (prom-client). Counters and the latency histogram are fed by the
 * gateway's call observer; gauges read the live state when scraped.
 */
const PREFIX = 'unifi_gateway_'
const label = (v: string) => (v.length > 64 ? v.slice(0, 64) : v)

export type GatewayMetrics = {
  registry: Registry
  observer: Partial<CallObserver>
  attach(gateway: Gateway, sessions: () => number): void
}

export function createMetrics(): GatewayMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: PREFIX })
  const calls = new Counter({
    name: `${PREFIX}tool_calls_total`,
    help: 'Upstream tool calls by upstream, tool and outcome (ok, error, timeout, cancelled, refused, unavailable).',
    labelNames: ['upstream', 'site', 'tool', 'outcome', 'via'],
    registers: [registry],
  })
  const latency = new Histogram({
    name: `${PREFIX}tool_call_duration_seconds`,
    help: 'Upstream tool call latency, queueing included.',
    labelNames: ['upstream', 'outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  })
  const jobsFinished = new Counter({
    name: `${PREFIX}jobs_finished_total`,
    help: 'Batch jobs that reached a terminal status.',
    labelNames: ['status'],
    registers: [registry],
  })
  const observer: Partial<CallObserver> = {
    upstreamCall(r: UpstreamCallRecord) {
      calls.inc({
        upstream: label(r.upstream),
        site: label(r.site),
        tool: label(r.tool),
        outcome: r.outcome,
        via: r.via,
      })
      if (r.outcome !== 'refused')
        latency.observe({ upstream: label(r.upstream), outcome: r.outcome }, r.ms / 1000)
    },
  }
  const attach = (gateway: Gateway, sessions: () => number) => {
    gateway.core.jobs.onFinish = (status) => jobsFinished.inc({ status })
    new Gauge({
      name: `${PREFIX}upstream_up`,
      help: '1 when the gateway has a live session with the upstream.',
      labelNames: ['upstream', 'site', 'app'],
      registers: [registry],
      collect() {
        this.reset()
        for (const u of gateway.upstreams())
          this.set({ upstream: u.name, site: u.site, app: u.app }, u.status === 'connected' ? 1 : 0)
      },
    })
    new Gauge({
      name: `${PREFIX}upstream_in_flight`,
      help: 'Calls holding a slot of the upstream right now.',
      labelNames: ['upstream'],
      registers: [registry],
      collect() {
        this.reset()
        for (const u of gateway.upstreams()) this.set({ upstream: u.name }, u.inFlight)
      },
    })
    new Gauge({
      name: `${PREFIX}upstream_queued`,
      help: 'Calls waiting for a slot of the upstream.',
      labelNames: ['upstream'],
      registers: [registry],
      collect() {
        this.reset()
        for (const u of gateway.upstreams()) this.set({ upstream: u.name }, u.queued)
      },
    })
    new Gauge({
      name: `${PREFIX}jobs`,
      help: 'Batch jobs by status: queued and running now, retained finished ones.',
      labelNames: ['status'],
      registers: [registry],
      collect() {
        const s = gateway.core.jobs.stats()
        this.set({ status: 'queued' }, s.queued)
        this.set({ status: 'running' }, s.running)
        this.set({ status: 'retained' }, s.retained)
      },
    })
    new Gauge({
      name: `${PREFIX}sessions`,
      help: 'Open downstream MCP sessions.',
      registers: [registry],
      collect() {
        this.set(sessions())
      },
    })
  }
  return { registry, observer, attach }
}
