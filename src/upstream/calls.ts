import {
  type CallToolResult,
  CallToolResultSchema,
  type GetPromptResult,
  GetPromptResultSchema,
  ListPromptsResultSchema,
  ListToolsResultSchema,
  type Prompt,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import type { CallOptions, UpstreamConnection } from './connection.js'

/**
 * Typed requests on an upstream connection. They go through `client.request` rather than
 * the SDK's callTool/listTools helpers: a relay passes results through verbatim, so it must
 * not validate structuredContent against output schemas (the helpers do, and compile a
 * validator per listed tool).
 */
const MAX_PAGES = 100

export async function listAllTools(conn: UpstreamConnection, timeoutMs: number): Promise<Tool[]> {
  const tools: Tool[] = []
  let cursor: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await conn.request(
      'tools/list',
      (client, signal) =>
        client.request(
          { method: 'tools/list', params: cursor ? { cursor } : {} },
          ListToolsResultSchema,
          {
            signal,
            timeout: timeoutMs + 1_000,
          },
        ),
      { timeoutMs },
    )
    tools.push(...result.tools)
    cursor = result.nextCursor
    if (!cursor) break
  }
  return tools
}

export async function listAllPrompts(
  conn: UpstreamConnection,
  timeoutMs: number,
): Promise<Prompt[]> {
  if (!conn.serverCapabilities?.prompts) return []
  const prompts: Prompt[] = []
  let cursor: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await conn.request(
      'prompts/list',
      (client, signal) =>
        client.request(
          { method: 'prompts/list', params: cursor ? { cursor } : {} },
          ListPromptsResultSchema,
          { signal, timeout: timeoutMs + 1_000 },
        ),
      { timeoutMs },
    )
    prompts.push(...result.prompts)
    cursor = result.nextCursor
    if (!cursor) break
  }
  return prompts
}

export type ToolCall = {
  name: string
  arguments?: Record<string, unknown>
  /** Request `_meta` to pass through, without the downstream progressToken (the SDK mints its own). */
  meta?: Record<string, unknown>
}

export async function callTool(
  conn: UpstreamConnection,
  call: ToolCall,
  opts: CallOptions,
): Promise<CallToolResult> {
  return conn.request(
    `tools/call ${call.name}`,
    (client, signal, onprogress) =>
      client.request(
        {
          method: 'tools/call',
          params: {
            name: call.name,
            arguments: call.arguments ?? {},
            ...(call.meta && Object.keys(call.meta).length > 0 ? { _meta: call.meta } : {}),
          },
        },
        CallToolResultSchema,
        {
          signal,
          // The connection enforces the timeout (and restarts it on progress); this is a backstop.
          timeout: opts.timeoutMs + 5_000,
          ...(onprogress ? { onprogress, resetTimeoutOnProgress: true } : {}),
        },
      ) as Promise<CallToolResult>,
    opts,
  )
}

export async function getPrompt(
  conn: UpstreamConnection,
  name: string,
  args: Record<string, string>,
  opts: CallOptions,
): Promise<GetPromptResult> {
  return conn.request(
    `prompts/get ${name}`,
    (client, signal) =>
      client.request(
        { method: 'prompts/get', params: { name, arguments: args } },
        GetPromptResultSchema,
        {
          signal,
          timeout: opts.timeoutMs + 5_000,
        },
      ),
    opts,
  )
}
