import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { UnifiApp } from '../core/apps.js'
import { isUpstreamMetaTool, type Manifest, type ToolEntry, toolEntryFrom } from './manifest.js'

/**
 * What one UniFi upstream really serves, learned when the gateway connects to it
 * (issue: "the index follows what the upstream really serves"). Pure functions over the
 * upstream's own answers; the I/O lives in gateway/learn.ts.
 */
export type ServedSource = 'index' | 'tools_list' | 'manifest_assumed'
export type Served = { tools: Map<string, ToolEntry>; source: ServedSource }

function sortKeys(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/** A tools/list entry in the manifest's shape (keys sorted, schema under schema.input/output). */
export function manifestShapeFromTool(tool: Tool): Record<string, unknown> {
  return sortKeys({
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    description: tool.description ?? '',
    name: tool.name,
    schema: {
      input: tool.inputSchema,
      ...(tool.outputSchema ? { output: tool.outputSchema } : {}),
    },
    ...(tool.title ? { title: tool.title } : {}),
  })
}

/**
 * From the upstream's `<p>_tool_index {include_schemas: true}`. Only a manifest-backed
 * index (lazy mode) is complete: in meta_only and eager the upstream builds it from its
 * runtime registry with no categories (reference §3.1, upstream bug), so it is not used.
 */
export function servedFromIndex(
  app: UnifiApp,
  index: unknown,
  manifest: Manifest,
): Served | undefined {
  if (!index || typeof index !== 'object') return undefined
  const { tools, categories } = index as { tools?: unknown; categories?: unknown }
  if (!Array.isArray(tools) || !Array.isArray(categories) || categories.length === 0)
    return undefined
  const out = new Map<string, ToolEntry>()
  for (const raw of tools) {
    if (!raw || typeof raw !== 'object' || typeof (raw as { name?: unknown }).name !== 'string')
      continue
    const name = (raw as { name: string }).name
    if (isUpstreamMetaTool(app, name)) continue
    out.set(name, toolEntryFrom(raw as Record<string, unknown>, manifest.moduleMap[name]))
  }
  return { tools: out, source: 'index' }
}

/** From tools/list: the domain tools an eager upstream registers. */
export function servedFromToolsList(
  app: UnifiApp,
  tools: readonly Tool[],
  manifest: Manifest,
): Served {
  const out = new Map<string, ToolEntry>()
  for (const tool of tools) {
    if (isUpstreamMetaTool(app, tool.name)) continue
    out.set(tool.name, toolEntryFrom(manifestShapeFromTool(tool), manifest.moduleMap[tool.name]))
  }
  return { tools: out, source: 'tools_list' }
}

/** When the upstream cannot tell (meta_only), assume it serves the gateway's manifest. */
export function servedFromManifest(app: UnifiApp, manifest: Manifest): Served {
  const out = new Map<string, ToolEntry>()
  for (const entry of manifest.tools)
    if (!isUpstreamMetaTool(app, entry.name)) out.set(entry.name, entry)
  return { tools: out, source: 'manifest_assumed' }
}

export type Drift = {
  added: string[]
  removed: string[]
  changed: { name: string; what: string[] }[]
}

function propertyNames(schema: Record<string, unknown>): string {
  const props = schema.properties
  return props && typeof props === 'object' ? Object.keys(props).sort().join(',') : ''
}
function requiredNames(schema: Record<string, unknown>): string {
  return Array.isArray(schema.required) ? [...schema.required].map(String).sort().join(',') : ''
}

/** Tools added, removed or changed (description, arguments, read-only hint) against the manifest. */
export function driftAgainstManifest(app: UnifiApp, manifest: Manifest, served: Served): Drift {
  const drift: Drift = { added: [], removed: [], changed: [] }
  for (const entry of manifest.tools) {
    if (isUpstreamMetaTool(app, entry.name)) continue
    const got = served.tools.get(entry.name)
    if (!got) {
      drift.removed.push(entry.name)
      continue
    }
    const what: string[] = []
    if (got.description !== entry.description) what.push('description')
    if (
      propertyNames(got.inputSchema) !== propertyNames(entry.inputSchema) ||
      requiredNames(got.inputSchema) !== requiredNames(entry.inputSchema)
    )
      what.push('arguments')
    if (got.readOnly !== entry.readOnly) what.push('readOnlyHint')
    if (what.length > 0) drift.changed.push({ name: entry.name, what })
  }
  for (const name of served.tools.keys()) if (!manifest.byName.has(name)) drift.added.push(name)
  drift.added.sort()
  return drift
}

export function driftIsEmpty(d: Drift): boolean {
  return d.added.length === 0 && d.removed.length === 0 && d.changed.length === 0
}
