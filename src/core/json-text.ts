import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'

/**
 * The upstream meta-tools answer with exactly one text block holding the result as
 * 2-space-indented JSON (pydantic_core.to_json(result, indent=2)), `isError: false`,
 * no structuredContent (reference §3.0). JSON.stringify(x, null, 2) prints the same.
 */
export function jsonResult(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], isError: false }
}

/** Argument problems found before a handler runs are `isError: true` with the message as text. */
export function errorTextResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true }
}

/** The JSON object in a result's single text block, if it holds exactly one. */
export function parseSingleJsonText(result: CallToolResult): unknown {
  const content = result.content ?? []
  if (content.length !== 1) return undefined
  const [block] = content
  if (block?.type !== 'text') return undefined
  try {
    return JSON.parse(block.text)
  } catch {
    return undefined
  }
}

export function textOf(result: CallToolResult): string {
  return (result.content ?? []).map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n')
}
