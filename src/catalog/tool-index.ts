import type { ToolEntry } from './manifest.js'
import { rankBySearch } from './search.js'

export type IndexQuery = {
  category?: string | undefined
  search?: string | undefined
  includeSchemas: boolean
  /** Exact, case-sensitive lookup of one tool (upstream issue #736). */
  name?: string | undefined
  site?: string | undefined
}

/** A tool the index may list, with the sites that serve it. */
export type IndexItem = { readonly entry: ToolEntry; readonly sites: readonly string[] }

export type IndexResult = {
  tools: Record<string, unknown>[]
  count: number
  categories: string[]
  filtered?: true
}

/**
 * The `*_tool_index` answer (reference §3.1), computed from the catalog without any
 * upstream call. Same keys and order as the upstream; `sites` is added to each entry when
 * the app runs on more than one site.
 */
export function queryToolIndex(
  items: readonly IndexItem[],
  query: IndexQuery,
  options: { withSites: boolean },
): IndexResult {
  const categories = [...new Set(items.map((i) => i.entry.category).filter((c) => c !== ''))].sort()
  let selected: readonly IndexItem[] = items
  if (query.name !== undefined) selected = selected.filter((i) => i.entry.name === query.name)
  if (query.category) {
    const wanted = query.category.toLowerCase()
    selected = selected.filter(
      (i) => i.entry.category !== '' && i.entry.category.toLowerCase() === wanted,
    )
  }
  if (query.search) {
    const ranked = rankBySearch(
      selected.map((i) => ({ name: i.entry.name, description: i.entry.description, item: i })),
      query.search,
    )
    selected = ranked.map((r) => r.item)
  }
  const tools = selected.map((i) => renderEntry(i, query.includeSchemas, options.withSites))
  const result: IndexResult = { tools, count: tools.length, categories }
  if (query.category || query.search || query.name !== undefined || query.site)
    result.filtered = true
  return result
}

function renderEntry(
  item: IndexItem,
  includeSchemas: boolean,
  withSites: boolean,
): Record<string, unknown> {
  const sites = withSites ? { sites: [...item.sites] } : {}
  if (includeSchemas) return { ...item.entry.raw, ...sites }
  const { name, title, description } = item.entry
  return { name, ...(title !== undefined ? { title } : {}), description, ...sites }
}
