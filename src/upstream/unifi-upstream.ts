import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import { APP_INFO, type UnifiApp } from '../core/apps.js'
import { jsonResult, parseSingleJsonText, textOf } from '../core/json-text.js'
import { callTool } from './calls.js'
import type { CallOptions, UpstreamConnection } from './connection.js'

/**
 * How a UniFi upstream can be driven, read from its tools/list (reference §2):
 * lazy lists five meta-tools, meta_only four, eager four plus every domain tool.
 * A lazy upstream does not list its domain tools and answers "Unknown tool" to a direct
 * call of one that is not loaded (upstream issues #45, #276), so the gateway never
 * assumes they are directly callable.
 */
export type UnifiMode = 'lazy' | 'meta_only' | 'eager' | 'plain'

export type UnifiProfile = {
  readonly app: UnifiApp
  readonly mode: UnifiMode
  readonly listed: ReadonlySet<string>
  readonly hasIndex: boolean
  readonly hasExecute: boolean
  readonly hasLoadTools: boolean
  /** Domain tools this gateway has loaded upstream with `<p>_load_tools` in this session. */
  readonly loadedUpstream: Set<string>
}

export function profileFromToolsList(app: UnifiApp, tools: readonly Tool[]): UnifiProfile {
  const p = APP_INFO[app].prefix
  const listed = new Set(tools.map((t) => t.name))
  const hasIndex = listed.has(`${p}_tool_index`)
  const hasExecute = listed.has(`${p}_execute`)
  const hasLoadTools = listed.has(`${p}_load_tools`)
  const domainListed = [...listed].some(
    (n) => n.startsWith(`${p}_`) && !/_(tool_index|execute|batch|batch_status|load_tools)$/.test(n),
  )
  const mode: UnifiMode = !hasExecute
    ? 'plain'
    : hasLoadTools
      ? 'lazy'
      : domainListed
        ? 'eager'
        : 'meta_only'
  return { app, mode, listed, hasIndex, hasExecute, hasLoadTools, loadedUpstream: new Set() }
}

const FAILED = 'Failed to execute tool: '

/**
 * The upstream's normalize_call_tool_result (reference §3.2), for upstreams without
 * `<p>_execute`: a direct result presented as `<p>_execute` would have answered.
 */
export function executeShapeFromDirect(result: CallToolResult): CallToolResult {
  if (result.isError) return jsonResult({ error: `${FAILED}${textOf(result)}` })
  if (result.structuredContent && typeof result.structuredContent === 'object') {
    const clean = Object.fromEntries(
      Object.entries(result.structuredContent).filter(([, v]) => v !== null && v !== undefined),
    )
    return jsonResult(clean)
  }
  const parsed = parseSingleJsonText(result)
  if (parsed !== undefined) return jsonResult(parsed)
  return { content: result.content, isError: false }
}

/** A `<p>_execute` answer presented as a direct tools/call result. */
export function directShapeFromExecute(result: CallToolResult): CallToolResult {
  const parsed = parseSingleJsonText(result)
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const obj = parsed as Record<string, unknown>
    const keys = Object.keys(obj)
    if (keys.length === 1 && typeof obj.error === 'string') {
      const message = obj.error.startsWith(FAILED) ? obj.error.slice(FAILED.length) : obj.error
      return { content: [{ type: 'text', text: message }], isError: true }
    }
    return {
      content: [{ type: 'text', text: JSON.stringify(obj, null, 2) }],
      structuredContent: obj,
      isError: false,
    }
  }
  return result
}

/**
 * An `<p>_execute`-shaped error (`{"error": "Failed to execute tool: <msg>"}`) → `<msg>`,
 * which is what the upstream's own batch records as the job error (reference §8.5).
 */
export function executeErrorMessage(result: CallToolResult): string | undefined {
  const parsed = parseSingleJsonText(result)
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const obj = parsed as Record<string, unknown>
    if (Object.keys(obj).length === 1 && typeof obj.error === 'string')
      return obj.error.startsWith(FAILED) ? obj.error.slice(FAILED.length) : obj.error
  }
  if (result.isError) return textOf(result)
  return undefined
}

/** Run a domain tool and answer in `<p>_execute`'s shape, whatever mode the upstream runs in. */
export async function executeDomainTool(
  conn: UpstreamConnection,
  profile: UnifiProfile,
  tool: string,
  args: Record<string, unknown>,
  opts: CallOptions,
): Promise<CallToolResult> {
  const p = APP_INFO[profile.app].prefix
  if (profile.hasExecute)
    return callTool(conn, { name: `${p}_execute`, arguments: { tool, arguments: args } }, opts)
  return executeShapeFromDirect(await callTool(conn, { name: tool, arguments: args }, opts))
}

/**
 * Call a domain tool directly (a loaded `<upstream>__<tool>` or an eager one) and answer in
 * the direct tools/call shape. On a lazy upstream the tool is loaded first with
 * `<p>_load_tools` (what the upstream's own relay learned to do, PR #277); a meta_only
 * upstream cannot register it, so the call goes through `<p>_execute`.
 */
export async function callDomainToolDirect(
  conn: UpstreamConnection,
  profile: UnifiProfile,
  tool: string,
  args: Record<string, unknown>,
  opts: CallOptions,
  meta?: Record<string, unknown>,
): Promise<CallToolResult> {
  const p = APP_INFO[profile.app].prefix
  const direct = () =>
    callTool(conn, { name: tool, arguments: args, ...(meta ? { meta } : {}) }, opts)
  if (profile.listed.has(tool) || profile.loadedUpstream.has(tool) || profile.mode === 'plain')
    return direct()
  if (profile.hasLoadTools) {
    const load = await callTool(
      conn,
      { name: `${p}_load_tools`, arguments: { tools: [tool] } },
      opts,
    )
    const answer = parseSingleJsonText(load) as { loaded?: unknown } | undefined
    if (Array.isArray(answer?.loaded) && answer.loaded.includes(tool)) {
      profile.loadedUpstream.add(tool)
      return direct()
    }
  }
  return directShapeFromExecute(await executeDomainTool(conn, profile, tool, args, opts))
}
