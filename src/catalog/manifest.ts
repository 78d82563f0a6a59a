import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { APP_INFO, type UnifiApp } from '../core/apps.js'
import { packageRoot } from '../core/package-info.js'

/**
 * A generated `tools_manifest.json` (reference §4). Validated loosely: the gateway only
 * needs names, descriptions, annotations and input schemas, and returns the stored
 * entry verbatim (key order included) for `include_schemas`.
 */
const JsonObjectSchema = z.record(z.string(), z.unknown())

export const ManifestToolSchema = z.looseObject({
  name: z.string().min(1),
  title: z.string().optional(),
  description: z.string().default(''),
  annotations: z
    .looseObject({
      readOnlyHint: z.boolean().optional(),
      destructiveHint: z.boolean().optional(),
      idempotentHint: z.boolean().optional(),
      openWorldHint: z.boolean().optional(),
    })
    .optional(),
  schema: z
    .looseObject({ input: JsonObjectSchema.optional(), output: JsonObjectSchema.optional() })
    .optional(),
  permission_action: z.string().optional(),
  permission_category: z.string().optional(),
})

export const ManifestSchema = z.looseObject({
  count: z.number().int().optional(),
  generated_by: z.string().optional(),
  module_map: z.record(z.string(), z.string()).default({}),
  note: z.string().optional(),
  tools: z.array(ManifestToolSchema),
})
export type ManifestFile = z.infer<typeof ManifestSchema>

/** One tool as the catalog holds it. */
export type ToolEntry = {
  readonly name: string
  readonly title?: string
  readonly description: string
  /** Last segment of the tool's module (`unifi_network_mcp.tools.clients` → `clients`); "" for meta-tools. */
  readonly category: string
  /** `annotations.readOnlyHint === true`. Anything else counts as mutating (reference §4). */
  readonly readOnly: boolean
  readonly inputSchema: Record<string, unknown>
  /** The entry exactly as stored in the manifest (or as the upstream described it). */
  readonly raw: Record<string, unknown>
}

export type Manifest = {
  readonly app: UnifiApp
  /** Every tool, meta-tools included, sorted by name as the generator writes them. */
  readonly tools: readonly ToolEntry[]
  readonly byName: ReadonlyMap<string, ToolEntry>
  readonly moduleMap: Readonly<Record<string, string>>
}

export function categoryOf(module: string | undefined): string {
  if (!module) return ''
  const at = module.lastIndexOf('.')
  return at >= 0 ? module.slice(at + 1) : module
}

export function toolEntryFrom(raw: Record<string, unknown>, module: string | undefined): ToolEntry {
  const t = ManifestToolSchema.parse(raw)
  return {
    name: t.name,
    ...(t.title !== undefined ? { title: t.title } : {}),
    description: t.description,
    category: categoryOf(module),
    readOnly: t.annotations?.readOnlyHint === true,
    inputSchema: t.schema?.input ?? { type: 'object', properties: {} },
    raw,
  }
}

export function buildManifest(app: UnifiApp, json: unknown): Manifest {
  const parsed = ManifestSchema.parse(json)
  const rawTools = (json as { tools: Record<string, unknown>[] }).tools
  const tools = rawTools.map((raw) => toolEntryFrom(raw, parsed.module_map[String(raw.name)]))
  return {
    app,
    tools,
    byName: new Map(tools.map((t) => [t.name, t])),
    moduleMap: parsed.module_map,
  }
}

export function manifestPath(app: UnifiApp, dir = join(packageRoot(), 'manifests')): string {
  return join(dir, `${app}.json`)
}

export async function loadManifestFile(app: UnifiApp, file = manifestPath(app)): Promise<Manifest> {
  const text = await readFile(file, 'utf8')
  try {
    return buildManifest(app, JSON.parse(text))
  } catch (err) {
    throw new Error(`manifest ${file} for ${APP_INFO[app].label} is not valid: ${String(err)}`)
  }
}

export async function loadManifests(dir?: string): Promise<Record<UnifiApp, Manifest>> {
  const [network, protect, access] = await Promise.all(
    (['network', 'protect', 'access'] as const).map((app) =>
      loadManifestFile(app, dir ? manifestPath(app, dir) : undefined),
    ),
  )
  return { network, protect, access } as Record<UnifiApp, Manifest>
}

/** Is this one of the upstream server's own meta-tools (`unifi_execute`, ...)? */
export function isUpstreamMetaTool(app: UnifiApp, name: string): boolean {
  const prefix = `${APP_INFO[app].prefix}_`
  if (!name.startsWith(prefix)) return false
  return [
    'tool_index',
    'execute',
    'batch',
    'batch_status',
    'load_tools',
    'get_support_bundle',
  ].includes(name.slice(prefix.length))
}
