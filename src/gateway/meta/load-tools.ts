import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { UnifiApp } from '../../core/apps.js'
import { jsonResult } from '../../core/json-text.js'
import { exposedNameProblem, namespaced } from '../../core/names.js'
import type { GatewayCore, SessionState } from '../context.js'
import { chooseSite } from '../site-routing.js'
import { parseMetaArgs } from './args.js'

/**
 * `<p>_load_tools {tools, site?}` (lazy mode): add `<upstream>__<tool>` to this session's
 * tools/list only, and tell this session with notifications/tools/list_changed.
 */
export async function loadTools(
  core: GatewayCore,
  session: SessionState,
  app: UnifiApp,
  args: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const parsed = parseMetaArgs(app, 'load_tools', args)
  if ('error' in parsed) return parsed.error
  const { tools, site } = parsed.value
  if (tools.length === 0) return jsonResult({ error: 'No tools specified', loaded: [], errors: [] })
  const sites = core.registry.sitesOf(app, session.caller)
  let targets: string[]
  if (site === '*') targets = sites
  else {
    const choice = chooseSite(app, sites, site)
    if (!choice.ok) return jsonResult({ error: choice.message, loaded: [], errors: [] })
    targets = [choice.site]
  }
  const loaded: string[] = []
  const errors: { tool: string; error: string }[] = []
  for (const tool of tools) {
    let any = false
    for (const s of targets) {
      const rt = core.registry.forSite(app, s)
      if (!rt || !core.registry.entryAt(rt, tool)) continue
      const exposed = namespaced(rt.config.name, tool)
      const problem = exposedNameProblem(exposed)
      if (problem) {
        errors.push({ tool, error: `cannot be exposed: ${problem}` })
        continue
      }
      session.loaded.add(exposed)
      loaded.push(exposed)
      any = true
    }
    if (!any && !errors.some((e) => e.tool === tool)) errors.push({ tool, error: 'Unknown tool' })
  }
  if (loaded.length > 0) session.notifyToolsChanged()
  return jsonResult({
    loaded,
    errors: errors.length > 0 ? errors : null,
    message: `Loaded ${loaded.length} tool(s). Client should refresh tool list.`,
  })
}
