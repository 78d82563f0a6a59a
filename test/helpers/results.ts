import type { Client } from '@modelcontextprotocol/sdk/client/index.js'

export type ToolResult = {
  content?: { type: string; text?: string }[]
  isError?: boolean
  structuredContent?: unknown
}

export function textOf(result: unknown): string {
  const r = result as ToolResult
  return (r.content ?? []).map((b) => b.text ?? '').join('\n')
}

/** The JSON object in a meta-tool answer's single text block. */
export function jsonOf<T = Record<string, unknown>>(result: unknown): T {
  return JSON.parse(textOf(result)) as T
}

export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult
}

export async function callJson<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = await call(client, name, args)
  if (result.isError) throw new Error(`${name} returned isError: ${textOf(result)}`)
  return jsonOf<T>(result)
}

export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined> | T | undefined,
  ms = 15_000,
  every = 50,
): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await fn()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, every))
  }
}
