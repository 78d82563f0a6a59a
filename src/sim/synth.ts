import { entity, kindOf, type SynthContext } from './entities.js'
import { createRng } from './prng.js'

export type { SynthContext }

/** Tool answers of the simulated controllers, built from entities. */
const LIST_HINT =
  /(^|_)(list|recent|search|get_alerts|get_anomalies|get_ips_events|get_top_clients|get_switch_ports|get_lldp_neighbors|get_pdu_outlets|get_rf_scan_results|get_client_sessions|get_event_types)(_|$)/

/** Split `unifi_get_client_details` into its verb and noun. */
export function verbAndNoun(tool: string): { verb: string; noun: string } {
  const parts = tool.split('_').slice(1)
  const verbs = new Set([
    'list',
    'get',
    'create',
    'update',
    'delete',
    'toggle',
    'set',
    'search',
    'recent',
    'lookup',
    'trigger',
    'reboot',
    'block',
    'unblock',
    'rename',
    'forget',
    'authorize',
    'unauthorize',
    'force',
    'adopt',
    'locate',
    'upgrade',
    'archive',
    'subscribe',
    'revoke',
    'configure',
    'power',
    'reorder',
    'arm',
    'disarm',
    'acknowledge',
    'merge',
    'export',
    'lock',
    'unlock',
    'ptz',
    'detection',
  ])
  const idx = parts.findIndex((p) => verbs.has(p))
  if (idx < 0) return { verb: 'get', noun: parts.join('_') }
  const noun = [...parts.slice(0, idx), ...parts.slice(idx + 1)].join('_')
  return { verb: parts[idx] as string, noun: noun.replace(/_(details|by_ip)$/, '') }
}

function pluralKey(noun: string): string {
  const base = noun.replace(/^(all_|known_)/, '')
  if (base.endsWith('s')) return base
  if (base.endsWith('y')) return `${base.slice(0, -1)}ies`
  return `${base}s`
}

/** The answer of a read-only tool. */
export function readResult(
  ctx: SynthContext,
  tool: string,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const rng = createRng(`${ctx.app}|${ctx.site}|${ctx.seed}|${tool}|${JSON.stringify(args)}`)
  const { noun } = verbAndNoun(tool)
  const kind = kindOf(noun, ctx.app)
  const isList =
    LIST_HINT.test(tool) ||
    (/s$/.test(noun) && !/(status|settings|stats|details|capabilities)$/.test(noun))
  if (isList) {
    const available = kind === 'client' ? rng.int(12, 40) : kind === 'port' ? 24 : rng.int(3, 14)
    const limit = typeof args.limit === 'number' && args.limit > 0 ? args.limit : available
    const n = Math.min(available, limit)
    const items = Array.from({ length: n }, (_, i) => entity(kind, ctx, rng, i))
    return {
      success: true,
      site: ctx.site,
      count: items.length,
      [pluralKey(noun || 'items')]: items,
    }
  }
  if (/stats|health|dashboard|speedtest|system_info|status/.test(noun)) {
    return {
      success: true,
      site: ctx.site,
      data: {
        status: 'ok',
        subsystems: ['wan', 'lan', 'wlan', 'vpn'].map((s) => ({
          subsystem: s,
          status: rng.pick(['ok', 'ok', 'ok', 'warning']),
          num_user: rng.int(0, 80),
        })),
        wan: {
          isp: rng.pick(['Fiber Co', 'CableNet', 'MetroLink']),
          latency_ms: rng.int(4, 40),
          xput_down_mbps: rng.int(100, 1000),
          xput_up_mbps: rng.int(20, 500),
        },
        uptime: rng.int(86400, 9e6),
        generated_for: tool,
      },
    }
  }
  return { success: true, site: ctx.site, data: entity(kind, ctx, rng, 0, args) }
}

/** The preview a mutating tool returns without confirm=true (reference §5 confirm gate). */
export function previewResult(
  ctx: SynthContext,
  tool: string,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const rng = createRng(
    `${ctx.app}|${ctx.site}|${ctx.seed}|${tool}|preview|${JSON.stringify(args)}`,
  )
  const { verb, noun } = verbAndNoun(tool)
  const kind = kindOf(noun, ctx.app)
  const { confirm: _confirm, ...proposed } = args
  const idKey = Object.keys(args).find((k) => /(_id|mac_address|_mac|^mac|^name)$/.test(k))
  const resourceId = idKey ? String(args[idKey]) : undefined
  const current = entity(kind, ctx, rng, 0, args)
  const preview =
    verb === 'create'
      ? { will_create: proposed }
      : verb === 'delete'
        ? { will_delete: current }
        : { current, proposed }
  return {
    success: true,
    requires_confirmation: true,
    action: verb,
    resource_type: noun.replace(/s$/, '') || 'resource',
    ...(resourceId !== undefined ? { resource_id: resourceId } : {}),
    preview,
    message: `Will ${verb} ${noun.replace(/_/g, ' ') || 'resource'}${resourceId ? ` ${resourceId}` : ''} on site ${ctx.site}. Set confirm=true to execute.`,
  }
}

/** The answer of a mutating tool called with confirm=true. */
export function mutationResult(
  ctx: SynthContext,
  tool: string,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const { verb, noun } = verbAndNoun(tool)
  const { confirm: _confirm, ...applied } = args
  return {
    success: true,
    message: `${verb} ${noun.replace(/_/g, ' ')} done on site ${ctx.site}`,
    data: { ...applied, site: ctx.site, applied_at: '2026-11-29T12:00:00.000Z' },
  }
}
