import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js'
import type { ToolEntry } from '../../catalog/manifest.js'
import { APP_INFO, type UnifiApp } from '../../core/apps.js'
import { messageOf } from '../../core/errors.js'
import { executeDomainTool, executeErrorMessage } from '../../upstream/unifi-upstream.js'
import type { CallContext, GatewayCore, SessionState } from '../context.js'
import { readOnlyRefusal } from '../policy.js'
import type { UpstreamRuntime } from '../registry.js'
import { executeError } from '../results.js'
import { chooseSite } from '../site-routing.js'
import { callUpstream, progressForwarder } from '../upstream-call.js'
import { parseMetaArgs } from './args.js'

export type Target = { rt: UpstreamRuntime; entry: ToolEntry }

/**
 * Find where a domain tool runs for this caller: the site's upstream, and the tool's entry
 * there. Returns a message (for the `{"error": ...}` shape) when it cannot run.
 */
export async function resolveTarget(
  core: GatewayCore,
  session: SessionState,
  app: UnifiApp,
  tool: string,
  site: string | undefined,
): Promise<Target | { error: string }> {
  const sites = core.registry.sitesOf(app, session.caller)
  const choice = chooseSite(app, sites, site)
  if (!choice.ok) return { error: choice.message }
  const rt = core.registry.forSite(app, choice.site)
  if (!rt) return { error: `site "${choice.site}" has no ${APP_INFO[app].label} upstream` }
  try {
    await core.registry.ensureLearned(rt)
  } catch (err) {
    // Unreachable now: still route the call (it fails with this message, or succeeds if the
    // upstream is back by then) when the tool is one it served before or the manifest lists.
    const known = core.registry.entryAt(rt, tool) ?? core.registry.manifest(app).byName.get(tool)
    if (!known) return { error: messageOf(err) }
    return { rt, entry: known }
  }
  const entry = core.registry.entryAt(rt, tool)
  if (!entry) {
    const elsewhere = sites.filter((s) => {
      const other = core.registry.forSite(app, s)
      return other && s !== choice.site && other.served?.tools.has(tool)
    })
    const known = core.registry.manifest(app).byName.has(tool) || elsewhere.length > 0
    const hint = elsewhere.length
      ? ` on site ${choice.site} (its upstream ${rt.config.name} does not serve it; sites that do: ${elsewhere.join(', ')})`
      : known
        ? ` on site ${choice.site} (its upstream ${rt.config.name} does not serve it)`
        : `. Use ${APP_INFO[app].prefix}_tool_index with 'search' to find the right name`
    return { error: `Unknown tool: ${tool}${hint}` }
  }
  return { rt, entry }
}

/** `<p>_execute {tool, arguments?, site?}`: route one call to one site and pass the answer through. */
export async function executeTool(
  core: GatewayCore,
  session: SessionState,
  app: UnifiApp,
  args: Record<string, unknown> | undefined,
  call: CallContext,
): Promise<CallToolResult> {
  const parsed = parseMetaArgs(app, 'execute', args)
  if ('error' in parsed) return parsed.error
  const { tool, site } = parsed.value
  const toolArgs = parsed.value.arguments ?? {}
  const target = await resolveTarget(core, session, app, tool, site)
  if ('error' in target) return executeError(target.error)
  const refusal = readOnlyRefusal(core.config(), target.rt.config, target.entry)
  if (refusal) {
    core.observer.upstreamCall({
      upstream: target.rt.config.name,
      site: target.rt.config.site,
      tool,
      caller: session.caller.name,
      mutating: true,
      via: 'execute',
      outcome: 'refused',
      ms: 0,
    })
    return executeError(refusal)
  }
  try {
    return await runOnTarget(
      core,
      session,
      target,
      tool,
      toolArgs,
      'execute',
      call.signal,
      progressForwarder(call),
    )
  } catch (err) {
    return executeError(messageOf(err))
  }
}

/**
 * Run a domain tool on its target through the upstream's `<p>_execute`, under the limits,
 * answering in `<p>_execute`'s shape. Shared by `*_execute` and the jobs of `*_batch`.
 */
export function runOnTarget(
  core: GatewayCore,
  session: SessionState,
  target: Target,
  tool: string,
  args: Record<string, unknown>,
  via: 'execute' | 'batch',
  signal: AbortSignal,
  onProgress: ((p: Progress) => void) | undefined,
  onStart?: () => void,
): Promise<CallToolResult> {
  return callUpstream(
    core,
    target.rt,
    {
      tool,
      caller: session.caller.name,
      mutating: !target.entry.readOnly,
      via,
      isFailure: (r) => executeErrorMessage(r) !== undefined,
    },
    signal,
    onProgress,
    (conn, profile, opts) => {
      if (!profile) throw new Error(`upstream ${target.rt.config.name} is not ready`)
      return executeDomainTool(conn, profile, tool, args, opts)
    },
    onStart,
  )
}
