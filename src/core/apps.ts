/**
 * The three UniFi MCP apps the gateway knows, and how their tools are named
 * (reference unifi-upstream.md §1–§3). `generic` upstreams are any other MCP server.
 */
export const UNIFI_APPS = ['network', 'protect', 'access'] as const
export type UnifiApp = (typeof UNIFI_APPS)[number]

export type AppInfo = {
  readonly app: UnifiApp
  /** Tool-name prefix: `unifi_list_clients`, `protect_list_cameras`, `access_list_doors`. */
  readonly prefix: string
  readonly label: string
  readonly hint: string
  /** Python package whose `tools.<category>` modules make up `module_map`. */
  readonly modulePackage: string
  readonly serverName: string
}

export const APP_INFO: Readonly<Record<UnifiApp, AppInfo>> = {
  network: {
    app: 'network',
    prefix: 'unifi',
    label: 'UniFi Network',
    hint: 'WiFi networks, clients, devices, switches, APs, firewall, VPN, routing, and statistics',
    modulePackage: 'unifi_network_mcp',
    serverName: 'unifi-network-mcp',
  },
  protect: {
    app: 'protect',
    prefix: 'protect',
    label: 'UniFi Protect',
    hint: 'security cameras, recordings, snapshots, motion events, live views, and NVR management',
    modulePackage: 'unifi_protect_mcp',
    serverName: 'unifi-protect-mcp',
  },
  access: {
    app: 'access',
    prefix: 'access',
    label: 'UniFi Access',
    hint: 'door locks, access readers, credentials, visitors, access policies, and entry events',
    modulePackage: 'unifi_access_mcp',
    serverName: 'unifi-access-mcp',
  },
}

export function isUnifiApp(app: string): app is UnifiApp {
  return (UNIFI_APPS as readonly string[]).includes(app)
}

/** The meta-tool suffixes of the upstream servers (and of the gateway). */
export const META_SUFFIXES = [
  'tool_index',
  'execute',
  'batch',
  'batch_status',
  'batch_cancel',
  'load_tools',
] as const
export type MetaSuffix = (typeof META_SUFFIXES)[number]

/** `unifi_execute` → { app: 'network', suffix: 'execute' } */
export function parseMetaToolName(name: string): { app: UnifiApp; suffix: MetaSuffix } | undefined {
  for (const app of UNIFI_APPS) {
    const prefix = `${APP_INFO[app].prefix}_`
    if (!name.startsWith(prefix)) continue
    const suffix = name.slice(prefix.length)
    if ((META_SUFFIXES as readonly string[]).includes(suffix))
      return { app, suffix: suffix as MetaSuffix }
  }
  return undefined
}
