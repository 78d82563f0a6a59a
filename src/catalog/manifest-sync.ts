import { APP_INFO, type UnifiApp } from '../core/apps.js'
import { pythonJsonDump } from '../core/python-json.js'

/**
 * Build a tools_manifest.json from what a live upstream reports: its index with schemas
 * (the tool entries) and one category query per category (the module map, which the index
 * does not return directly). Pure: the CLI does the calls.
 */
export type SyncInput = {
  app: UnifiApp
  /** Entries from `<p>_tool_index {include_schemas: true}` (or tools/list in manifest shape). */
  tools: Record<string, unknown>[]
  /** category → tool names, from `<p>_tool_index {category}` for each listed category. */
  categories: Record<string, string[]>
  /** Module map to fall back on for tools no category query returned (an older manifest). */
  fallbackModuleMap?: Record<string, string>
}

export function buildManifestJson(input: SyncInput): { text: string; unmapped: string[] } {
  const pkg = APP_INFO[input.app].modulePackage
  const moduleMap: Record<string, string> = {}
  for (const [category, names] of Object.entries(input.categories))
    for (const name of names) moduleMap[name] = `${pkg}.tools.${category}`
  const tools = [...input.tools].sort((a, b) => (String(a.name) < String(b.name) ? -1 : 1))
  const metaSuffix = /_(tool_index|execute|batch|batch_status|load_tools|get_support_bundle)$/
  const unmapped: string[] = []
  for (const t of tools) {
    const name = String(t.name)
    if (moduleMap[name] || metaSuffix.test(name)) continue
    const fallback = input.fallbackModuleMap?.[name]
    if (fallback) moduleMap[name] = fallback
    else unmapped.push(name)
  }
  const manifest = {
    count: tools.length,
    generated_by: 'unifi-mcp-gateway manifest sync',
    module_map: moduleMap,
    note: "Rebuilt from a live upstream's tool index by unifi-mcp-gateway manifest sync. Do not edit manually.",
    tools,
  }
  return { text: pythonJsonDump(manifest), unmapped }
}
