import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ToolEntry } from '../catalog/manifest.js'
import { isUnifiApp, UNIFI_APPS } from '../core/apps.js'
import type { GatewayCore, SessionState } from './context.js'
import type { Exposure } from './exposure.js'
import { metaToolDefinitions } from './meta/definitions.js'
import type { UpstreamRuntime } from './registry.js'

/** A UniFi domain tool as `<upstream>__<tool>` in tools/list (eager mode, or loaded in lazy mode). */
export function unifiToolDefinition(exposed: string, entry: ToolEntry): Tool {
  const annotations = entry.raw.annotations as Tool['annotations'] | undefined
  return {
    name: exposed,
    ...(entry.title !== undefined ? { title: entry.title } : {}),
    description: entry.description,
    inputSchema: { type: 'object', ...entry.inputSchema } as Tool['inputSchema'],
    ...(annotations ? { annotations } : {}),
  }
}

/**
 * A generic upstream's tool under its namespaced name. Tools that require task
 * augmentation are left out (the gateway does not relay MCP tasks), as is anything whose
 * name cannot be exposed.
 */
export function genericToolDefinitions(rt: UpstreamRuntime, exposure: Exposure): Tool[] {
  const out: Tool[] = []
  const seen = new Set<string>()
  for (const tool of rt.tools) {
    const exposed = exposure.expose('tool', rt.config.name, tool.name)
    if (!exposed) continue
    if (tool.execution?.taskSupport === 'required') {
      exposure.exclude({
        kind: 'tool',
        upstream: rt.config.name,
        name: exposed,
        reason: 'it requires MCP task augmentation, which the gateway does not relay',
      })
      continue
    }
    if (seen.has(exposed)) {
      exposure.exclude({
        kind: 'tool',
        upstream: rt.config.name,
        name: exposed,
        reason: 'listed twice by the upstream',
      })
      continue
    }
    seen.add(exposed)
    const { execution: _execution, ...rest } = tool
    out.push({ ...rest, name: exposed })
  }
  return out
}

/**
 * What this session sees in tools/list: the meta-tools of each UniFi app it can reach
 * (whatever the number of sites), then, by mode, every UniFi tool (eager) or the ones this
 * session loaded (lazy), then every generic upstream's tools.
 */
export function buildToolList(
  core: GatewayCore,
  exposure: Exposure,
  session: SessionState,
): Tool[] {
  const mode = core.config().registrationMode
  const visible = core.registry.visible(session.caller)
  const tools: Tool[] = []
  for (const app of UNIFI_APPS) {
    if (visible.some((rt) => rt.config.app === app))
      tools.push(...metaToolDefinitions(core.captured, app, mode))
  }
  const namespacedTools: Tool[] = []
  for (const rt of visible) {
    const app = rt.config.app
    if (!isUnifiApp(app)) {
      namespacedTools.push(...genericToolDefinitions(rt, exposure))
      continue
    }
    if (!rt.served) continue
    for (const name of rt.served.tools.keys()) {
      const exposed = exposure.expose('tool', rt.config.name, name)
      if (!exposed) continue
      if (mode === 'eager' || (mode === 'lazy' && session.loaded.has(exposed))) {
        const entry = core.registry.entryAt(rt, name)
        if (entry) namespacedTools.push(unifiToolDefinition(exposed, entry))
      }
    }
  }
  namespacedTools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return [...tools, ...namespacedTools]
}
