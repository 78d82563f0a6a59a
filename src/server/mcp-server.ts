import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js'
import type { Caller } from '../core/caller.js'
import { PRODUCT_NAME, packageVersion } from '../core/package-info.js'
import type { CallContext, SessionState } from '../gateway/context.js'
import type { Gateway } from '../gateway/gateway.js'
import { toRpcError } from './mcp-errors.js'

const INSTRUCTIONS = `This gateway fronts UniFi MCP servers (and possibly others) for one or more sites.
Find UniFi tools with unifi_tool_index / protect_tool_index / access_tool_index (category, search or exact name; include_schemas for parameters), then run them with *_execute {tool, arguments, site}. Use *_batch for many calls (site "*" fans a read-only tool out to every site) and *_batch_status {jobIds, wait_ms} to collect results. Mutating tools return a preview until called with confirm=true.
Other upstreams' tools and prompts appear as <upstream>__<name>.`

export type McpSession = { state: SessionState; server: Server; dispose(): void }

/**
 * One SDK server for one downstream session, answering from the gateway. The low-level
 * Server is used on purpose: upstream JSON Schemas pass through untouched.
 */
export function createMcpSession(gateway: Gateway, caller: Caller, sessionId: string): McpSession {
  const server = new Server(
    { name: PRODUCT_NAME, version: packageVersion(), title: 'UniFi MCP Gateway' },
    {
      capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, logging: {} },
      instructions: INSTRUCTIONS,
    },
  )
  const notify = (send: () => Promise<void>) => () => {
    send().catch(() => {
      // The session is gone or not yet initialized: nothing to tell it.
    })
  }
  const state: SessionState = {
    id: sessionId,
    caller,
    loaded: new Set(),
    notifyToolsChanged: notify(() => server.sendToolListChanged()),
  }
  const offTools = gateway.onToolsChanged(state.notifyToolsChanged)
  const offPrompts = gateway.onPromptsChanged(notify(() => server.sendPromptListChanged()))
  // Upstream log messages (and the gateway's own about upstreams going down or up) reach the
  // sessions that can see that upstream, filtered by the level each set with logging/setLevel.
  const offLog = gateway.onLog((upstream, params) => {
    if (!gateway.canSee(caller, upstream)) return
    server
      .sendLoggingMessage(
        params as LoggingMessageNotification['params'],
        sessionId === 'stdio' ? undefined : sessionId,
      )
      .catch(() => {})
  })

  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    try {
      return gateway.listTools(state, req.params?.cursor)
    } catch (err) {
      throw toRpcError(err)
    }
  })

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { progressToken, ...meta } = req.params._meta ?? {}
    const call: CallContext = {
      signal: extra.signal,
      ...(progressToken !== undefined
        ? {
            sendProgress: (p) =>
              extra.sendNotification({
                method: 'notifications/progress',
                params: { ...p, progressToken },
              }),
          }
        : {}),
      ...(Object.keys(meta).length > 0 ? { meta } : {}),
    }
    try {
      return await gateway.callTool(state, req.params.name, req.params.arguments, call)
    } catch (err) {
      throw toRpcError(err)
    }
  })

  server.setRequestHandler(ListPromptsRequestSchema, async (req) => {
    try {
      return gateway.listPrompts(caller, req.params?.cursor)
    } catch (err) {
      throw toRpcError(err)
    }
  })

  server.setRequestHandler(GetPromptRequestSchema, async (req, extra) => {
    try {
      return await gateway.getPrompt(caller, req.params.name, req.params.arguments, {
        signal: extra.signal,
      })
    } catch (err) {
      throw toRpcError(err)
    }
  })

  return {
    state,
    server,
    dispose: () => {
      offTools()
      offPrompts()
      offLog()
    },
  }
}
