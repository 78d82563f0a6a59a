import type { Rng } from './prng.js'

/**
 * Entities of the simulated controllers (clients, devices, cameras, doors, ...).
 * Plausible, deterministic UniFi-looking data for the simulator. The same (site, seed,
 * tool, arguments) always gives the same answer; different sites give different networks
 * (their own subnet, hostnames carrying the site name).
 */
export type SynthContext = { app: 'network' | 'protect' | 'access'; site: string; seed: number }

const HOST_WORDS = [
  'laptop',
  'phone',
  'tv',
  'printer',
  'nas',
  'camera',
  'tablet',
  'desktop',
  'watch',
  'hub',
  'speaker',
  'thermostat',
]
const OUIS = [
  'Apple',
  'Samsung',
  'Intel',
  'Dell',
  'HP',
  'Sonos',
  'Google',
  'Raspberry Pi',
  'Ubiquiti',
  'Espressif',
]
const DEVICE_MODELS: [string, string][] = [
  ['U6-Pro', 'uap'],
  ['U6-LR', 'uap'],
  ['U7-Pro', 'uap'],
  ['USW-24-PoE', 'usw'],
  ['USW-Lite-8-PoE', 'usw'],
  ['USW-Pro-48', 'usw'],
  ['UDM-Pro', 'udm'],
  ['UXG-Max', 'uxg'],
]
const CAMERA_MODELS = [
  'G4 Bullet',
  'G4 Dome',
  'G5 Flex',
  'G4 Doorbell Pro',
  'AI 360',
  'G5 Turret Ultra',
]
const ROOMS = [
  'lobby',
  'office',
  'warehouse',
  'parking',
  'server-room',
  'reception',
  'kitchen',
  'loading-dock',
]
const FIRST = ['Ana', 'Ben', 'Chen', 'Dara', 'Eli', 'Fatima', 'Gus', 'Hana', 'Ivan', 'Jo']
const LAST = ['Silva', 'Okafor', 'Nguyen', 'Schmidt', 'Haddad', 'Kim', 'Rossi', 'Larsen']

export function siteOctet(site: string): number {
  let h = 0
  for (const ch of site) h = (h * 31 + ch.charCodeAt(0)) % 200
  return 10 + h
}

function mac(rng: Rng): string {
  const bytes = [
    rng.int(0, 255) & 0xfc,
    rng.int(0, 255),
    rng.int(0, 255),
    rng.int(0, 255),
    rng.int(0, 255),
    rng.int(0, 255),
  ]
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':')
}
const objectId = (rng: Rng) => rng.hex(12)
const uuid = (rng: Rng) => `${rng.hex(4)}-${rng.hex(2)}-${rng.hex(2)}-${rng.hex(2)}-${rng.hex(6)}`
const isoAgo = (rng: Rng, maxHours: number) =>
  new Date(Date.UTC(2026, 10, 29, 12, 0, 0) - rng.int(60, maxHours * 3600) * 1000).toISOString()
const epochAgo = (rng: Rng, maxHours: number) =>
  Math.floor(Date.UTC(2026, 10, 29, 12) / 1000) - rng.int(60, maxHours * 3600)

type Kind =
  | 'client'
  | 'device'
  | 'camera'
  | 'door'
  | 'event'
  | 'network'
  | 'wlan'
  | 'rule'
  | 'group'
  | 'voucher'
  | 'backup'
  | 'port'
  | 'person'
  | 'recording'
  | 'dns'
  | 'vpn'
  | 'channel'
  | 'generic'

export function kindOf(noun: string, app: SynthContext['app']): Kind {
  const n = noun.toLowerCase()
  if (/dns_record|dynamic_dns/.test(n)) return 'dns'
  if (/vpn/.test(n)) return 'vpn'
  if (/group|profile|usergroup|liveview/.test(n)) return 'group'
  if (/client/.test(n)) return 'client'
  if (/camera|snapshot|stream/.test(n)) return 'camera'
  if (/door/.test(n)) return 'door'
  if (/event|alarm|alert|anomal|detection|ips|activity|log/.test(n)) return 'event'
  if (/wlan|wifi/.test(n)) return 'wlan'
  if (/network|vlan/.test(n)) return 'network'
  if (/firewall|policy|policies|rule|acl|qos|route|forward|filter|oon|traffic/.test(n))
    return 'rule'
  if (/voucher/.test(n)) return 'voucher'
  if (/backup/.test(n)) return 'backup'
  if (/port|outlet|lldp/.test(n)) return 'port'
  if (/user|visitor|credential|face|plate|viewer/.test(n)) return 'person'
  if (/recording|clip/.test(n)) return 'recording'
  if (/channel|rf_scan|rogue/.test(n)) return 'channel'
  if (/device|ap|switch|radio|sensor|light|chime|nvr|hub|reader/.test(n) || app === 'access')
    return 'device'
  return 'generic'
}

/** One entity of a kind; `i` makes list items differ, `given` pins identifiers from the call. */
export function entity(
  kind: Kind,
  ctx: SynthContext,
  rng: Rng,
  i: number,
  given: Record<string, unknown> = {},
): Record<string, unknown> {
  const octet = siteOctet(ctx.site)
  const name = `${ctx.site}-${rng.pick(ROOMS)}-${String(i + 1).padStart(2, '0')}`
  switch (kind) {
    case 'client': {
      const wired = rng.bool(0.35)
      const host = `${ctx.site}-${rng.pick(HOST_WORDS)}-${String(i + 1).padStart(2, '0')}`
      return {
        mac: String(given.mac_address ?? given.client_mac ?? given.mac ?? mac(rng)),
        ip: String(
          given.ip ?? given.ip_address ?? `10.${octet}.${rng.int(1, 4)}.${rng.int(10, 250)}`,
        ),
        hostname: host,
        name: host,
        oui: rng.pick(OUIS),
        is_wired: wired,
        network: wired ? 'Default' : rng.pick(['Default', 'IoT', 'Guest']),
        vlan: wired ? 1 : rng.pick([1, 20, 30]),
        ...(wired
          ? { sw_port: rng.int(1, 24) }
          : {
              essid: `${ctx.site.toUpperCase()}-Corp`,
              channel: rng.pick([1, 6, 11, 36, 44, 149]),
              signal: -rng.int(45, 78),
              ap_mac: mac(rng),
            }),
        rx_bytes: rng.int(1e5, 5e9),
        tx_bytes: rng.int(1e5, 2e9),
        uptime: rng.int(60, 864000),
        last_seen: epochAgo(rng, 2),
        blocked: false,
      }
    }
    case 'device': {
      const [model, type] = rng.pick(DEVICE_MODELS)
      return {
        _id: String(given.device_id ?? objectId(rng)),
        mac: String(given.mac_address ?? given.device_mac ?? given.mac ?? mac(rng)),
        ip: `10.${octet}.0.${rng.int(2, 60)}`,
        name: `${ctx.site}-${type}-${String(i + 1).padStart(2, '0')}`,
        model,
        type,
        version: `7.${rng.int(0, 2)}.${rng.int(10, 99)}`,
        state: 'connected',
        adopted: true,
        uptime: rng.int(3600, 3e6),
        num_sta: type === 'uap' ? rng.int(0, 60) : 0,
        'system-stats': { cpu: rng.int(2, 60), mem: rng.int(20, 80) },
      }
    }
    case 'camera':
      return {
        id: String(given.camera_id ?? rng.hex(12)),
        name: `${ctx.site} ${rng.pick(ROOMS)} ${i + 1}`,
        type: `UVC ${rng.pick(CAMERA_MODELS)}`,
        mac: mac(rng).replace(/:/g, '').toUpperCase(),
        host: `10.${octet}.5.${rng.int(10, 250)}`,
        state: 'CONNECTED',
        is_recording: true,
        is_mic_enabled: rng.bool(),
        last_motion: isoAgo(rng, 12),
        firmware_version: `5.${rng.int(0, 2)}.${rng.int(10, 200)}`,
      }
    case 'door':
      return {
        id: String(given.door_id ?? uuid(rng)),
        name: `${ctx.site} ${rng.pick(ROOMS)} door`,
        floor: rng.int(0, 4),
        lock_status: rng.pick(['locked', 'locked', 'unlocked']),
        door_position_status: rng.pick(['close', 'close', 'open']),
        hub_id: uuid(rng),
      }
    case 'event':
      return {
        id: String(given.event_id ?? objectId(rng)),
        type: rng.pick([
          'EVT_WU_Connected',
          'EVT_WU_Disconnected',
          'EVT_SW_Lost_Contact',
          'EVT_AP_Upgraded',
          'motion',
          'smartDetectZone',
          'access.door.unlock',
        ]),
        message: `${rng.pick(['Client connected', 'Client roamed', 'Device restarted', 'Motion detected', 'Door unlocked'])} at ${name}`,
        time: isoAgo(rng, 48),
        site: ctx.site,
        severity: rng.pick(['info', 'info', 'warning']),
      }
    case 'network':
      return {
        _id: String(given.network_id ?? objectId(rng)),
        name: i === 0 ? 'Default' : rng.pick(['IoT', 'Guest', 'Cameras', 'Servers', 'VoIP']),
        purpose: i === 0 ? 'corporate' : rng.pick(['corporate', 'guest', 'vlan-only']),
        vlan: i === 0 ? 1 : 10 * (i + 1),
        ip_subnet: `10.${octet}.${i}.1/24`,
        dhcpd_enabled: true,
        enabled: true,
      }
    case 'wlan':
      return {
        _id: String(given.wlan_id ?? objectId(rng)),
        name: `${ctx.site.toUpperCase()}-${i === 0 ? 'Corp' : rng.pick(['Guest', 'IoT', 'Staff'])}`,
        security: rng.pick(['wpapsk', 'wpa3']),
        wlan_band: 'both',
        enabled: true,
        x_passphrase: '***REDACTED***',
      }
    case 'rule':
      return {
        _id: String(given.policy_id ?? given.rule_id ?? given.id ?? objectId(rng)),
        name: `${rng.pick(['Block', 'Allow', 'Limit'])} ${rng.pick(['IoT to LAN', 'Guest to LAN', 'DNS', 'SSH', 'Streaming'])}`,
        enabled: rng.bool(0.85),
        action: rng.pick(['ALLOW', 'BLOCK', 'REJECT']),
        protocol: rng.pick(['all', 'tcp', 'udp', 'tcp_udp']),
        index: 10000 + i,
      }
    case 'group':
      return {
        _id: String(given.group_id ?? objectId(rng)),
        name: `${ctx.site} ${rng.pick(['Staff', 'IoT', 'Printers', 'Lobby'])}`,
        members: rng.int(0, 30),
      }
    case 'voucher':
      return {
        _id: objectId(rng),
        code: String(rng.int(1e9, 9e9)),
        duration: 1440,
        quota: 1,
        used: rng.int(0, 1),
        status: 'VALID_ONE',
      }
    case 'backup':
      return {
        filename: `autobackup_${ctx.site}_${i}.unf`,
        size: rng.int(1e6, 5e7),
        datetime: isoAgo(rng, 24 * 14),
      }
    case 'port':
      return {
        port_idx: i + 1,
        name: `Port ${i + 1}`,
        up: rng.bool(0.7),
        speed: rng.pick([100, 1000, 2500]),
        poe_mode: rng.pick(['auto', 'off']),
        full_duplex: true,
      }
    case 'person':
      return {
        id: uuid(rng),
        first_name: rng.pick(FIRST),
        last_name: rng.pick(LAST),
        status: rng.pick(['ACTIVE', 'ACTIVE', 'PENDING']),
      }
    case 'recording':
      return {
        id: rng.hex(12),
        camera_id: rng.hex(12),
        start: isoAgo(rng, 24),
        duration_s: rng.int(10, 600),
        size: rng.int(1e6, 4e8),
      }
    case 'dns':
      return {
        _id: objectId(rng),
        key: `${rng.pick(HOST_WORDS)}.${ctx.site}.lan`,
        value: `10.${octet}.1.${rng.int(2, 250)}`,
        record_type: 'A',
        ttl: 300,
        enabled: true,
      }
    case 'vpn':
      return {
        _id: objectId(rng),
        name: `${ctx.site}-wg-${i + 1}`,
        type: 'wireguard',
        enabled: rng.bool(0.8),
        peers: rng.int(0, 12),
      }
    case 'channel':
      return {
        channel: rng.pick([1, 6, 11, 36, 40, 44, 48, 149, 153]),
        band: rng.pick(['2g', '5g']),
        utilization: rng.int(3, 85),
        rssi: -rng.int(40, 90),
        essid: rng.pick(['Neighbor', 'xfinitywifi', 'DIRECT-printer']),
      }
    default:
      return { id: objectId(rng), name, enabled: rng.bool(0.9) }
  }
}
