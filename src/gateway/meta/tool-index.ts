import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { type IndexItem, queryToolIndex } from '../../catalog/tool-index.js'
import { APP_INFO, type UnifiApp } from '../../core/apps.js'
import { errorTextResult, jsonResult } from '../../core/json-text.js'
import type { GatewayCore, SessionState } from '../context.js'
import { chooseSite } from '../site-routing.js'
import { parseMetaArgs } from './args.js'
import { metaIndexEntries } from './definitions.js'

/**
 * `<p>_tool_index`: answered from the manifests and what each connected upstream serves,
 * without any upstream call.
 */
export async function toolIndex(
  core: GatewayCore,
  session: SessionState,
  app: UnifiApp,
  args: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const name = `${APP_INFO[app].prefix}_tool_index`
  const parsed = parseMetaArgs(app, 'tool_index', args)
  if ('error' in parsed) return parsed.error
  const q = parsed.value
  if (q.name !== undefined && (q.category || q.search))
    return errorTextResult(
      `Invalid params for '${name}': 'name' is an exact lookup and cannot be combined with 'category' or 'search'. Send 'name' alone (with include_schemas for its parameters).`,
    )
  const sites = core.registry.sitesOf(app, session.caller)
  let site: string | undefined
  if (q.site) {
    const choice = chooseSite(app, sites, q.site)
    if (!choice.ok) return errorTextResult(`Invalid params for '${name}': ${choice.message}`)
    site = choice.site
  }
  const mode = core.config().registrationMode
  const metaSites = site ? [site] : sites
  const metaItems: IndexItem[] = metaIndexEntries(core.registry.manifest(app), app, mode).map(
    (entry) => ({
      entry,
      sites: metaSites,
    }),
  )
  const items = [...metaItems, ...core.registry.indexItems(app, session.caller, site)].sort(
    (a, b) => (a.entry.name < b.entry.name ? -1 : a.entry.name > b.entry.name ? 1 : 0),
  )
  const result = queryToolIndex(
    items,
    {
      category: q.category,
      search: q.search,
      includeSchemas: q.include_schemas,
      name: q.name,
      site,
    },
    { withSites: sites.length > 1 },
  )
  return jsonResult(result)
}
