import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import { APP_INFO } from '../core/apps.js'
import { packageVersion } from '../core/package-info.js'
import type { CapturedMetaTools } from '../gateway/meta/definitions.js'
import { checkPromptArgs } from '../prompts/prompt-args.js'
import { callSimMeta, isSimMetaTool, simMetaTools } from './sim-meta.js'
import { availablePrompts, promptListing, renderPrompt } from './sim-prompts.js'
import { type SimState, SimToolError } from './sim-state.js'

/** A domain tool as the upstream lists it once registered (manifest view of its schema). */
function domainToolDefinition(entry: {
  name: string
  title?: string
  description: string
  raw: Record<string, unknown>
  inputSchema: Record<string, unknown>
}): Tool {
  const schema = (entry.raw.schema ?? {}) as { output?: Record<string, unknown> }
  return {
    name: entry.name,
    ...(entry.title ? { title: entry.title } : {}),
    description: entry.description,
    inputSchema: { type: 'object', ...entry.inputSchema } as Tool['inputSchema'],
    ...(schema.output
      ? { outputSchema: { type: 'object', ...schema.output } as Tool['outputSchema'] }
      : {}),
    ...(entry.raw.annotations ? { annotations: entry.raw.annotations as Tool['annotations'] } : {}),
  }
}

/** The upstream's adaptive content mode: a short summary text next to structuredContent. */
function directResult(tool: string, result: Record<string, unknown>): CallToolResult {
  const count = typeof result.count === 'number' ? ` count=${result.count}.` : ''
  return {
    content: [
      {
        type: 'text',
        text: `${tool} completed successfully.${count} Full result is available in structuredContent.`,
      },
    ],
    structuredContent: result,
  }
}

/** One MCP server (per session) of a simulated UniFi upstream. */
export function createSimServer(state: SimState, captured: CapturedMetaTools): Server {
  const info = APP_INFO[state.opts.app]
  const server = new Server(
    {
      name: info.serverName,
      version: `sim-${packageVersion()}`,
      title: `${info.label} (simulated, site ${state.opts.site})`,
    },
    // Like the upstream: listChanged is advertised false, yet lazy loading does notify.
    { capabilities: { tools: { listChanged: false }, prompts: { listChanged: false } } },
  )
  const prompts = () =>
    availablePrompts(state.opts.app, (n) => state.domainTool(n) !== undefined).filter(
      (p) => !state.promptDisabled(p.name),
    )

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    state.count('tools/list')
    return {
      tools: [
        ...simMetaTools(state, captured),
        ...state.registeredDomainTools().map(domainToolDefinition),
      ],
    }
  })

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const name = req.params.name
    state.count('tools/call')
    const token = req.params._meta?.progressToken
    const progress =
      token === undefined
        ? undefined
        : (p: { progress: number; total: number; message: string }) =>
            extra.sendNotification({
              method: 'notifications/progress',
              params: { ...p, progressToken: token },
            })
    if (isSimMetaTool(state, name, captured)) {
      const result = await callSimMeta(
        state,
        captured,
        name,
        req.params.arguments,
        extra.signal,
        progress,
      )
      if (name === `${state.prefix}_load_tools` && !result.isError) {
        const loaded = JSON.parse((result.content[0] as { text: string }).text).loaded as string[]
        if (loaded.length > 0) await server.sendToolListChanged().catch(() => {})
      }
      return result
    }
    const entry = state.domainTool(name)
    if (!entry || !state.isRegistered(name))
      return { content: [{ type: 'text', text: `Unknown tool: ${name}` }], isError: true }
    try {
      return directResult(
        name,
        await state.runDomainTool(entry, req.params.arguments ?? {}, extra.signal, progress),
      )
    } catch (err) {
      if (err instanceof SimToolError)
        return { content: [{ type: 'text', text: err.message }], isError: true }
      throw err
    }
  })

  server.setRequestHandler(ListPromptsRequestSchema, async () => {
    state.count('prompts/list')
    return { prompts: prompts().map(promptListing) }
  })

  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    state.count('prompts/get')
    const prompt = prompts().find((p) => p.name === req.params.name)
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${req.params.name}`)
    const checked = checkPromptArgs(prompt.name, prompt.arguments, req.params.arguments, {
      maxTextLength: 2_000,
      maxIdentifierLength: 500,
    })
    if (!checked.ok) throw new McpError(ErrorCode.InvalidParams, checked.message)
    return renderPrompt(prompt, checked.args)
  })

  return server
}
