import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js'
import type { Caller } from '../core/caller.js'
import { GatewayError } from '../core/errors.js'
import { splitNamespaced } from '../core/names.js'
import { checkPromptArgs } from '../prompts/prompt-args.js'
import { getPrompt } from '../upstream/calls.js'
import type { CallContext, GatewayCore } from './context.js'
import type { Exposure } from './exposure.js'
import type { UpstreamRuntime } from './registry.js'

/**
 * Prompts of every upstream under `<upstream>__<prompt>`, as MCPJungle exposes them.
 * prompts/list is answered from the cache the registry refreshes on connect and on
 * notifications/prompts/list_changed; prompts/get calls only that upstream's prompts/get.
 */
export const PROMPT_PAGE_SIZE = 100

function isDisabled(core: GatewayCore, upstream: string, exposed: string): boolean {
  const disabled = core.config().prompts.disabled
  return disabled.includes(upstream) || disabled.includes(exposed)
}

export function listExposedPrompts(
  core: GatewayCore,
  exposure: Exposure,
  caller: Caller,
): { prompt: Prompt; rt: UpstreamRuntime }[] {
  const out: { prompt: Prompt; rt: UpstreamRuntime }[] = []
  for (const rt of core.registry.visible(caller)) {
    const seen = new Set<string>()
    for (const prompt of rt.prompts) {
      const exposed = exposure.expose('prompt', rt.config.name, prompt.name)
      if (!exposed || isDisabled(core, rt.config.name, exposed)) continue
      if (seen.has(exposed)) {
        exposure.exclude({
          kind: 'prompt',
          upstream: rt.config.name,
          name: exposed,
          reason: 'the upstream lists this prompt name twice',
        })
        continue
      }
      seen.add(exposed)
      out.push({ prompt: { ...prompt, name: exposed }, rt })
    }
  }
  return out
}

export function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url')
}

export function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown }
    if (typeof value.o === 'number' && Number.isInteger(value.o) && value.o >= 0) return value.o
  } catch {
    // fall through
  }
  throw new GatewayError(
    'invalid_input',
    'invalid cursor: pass the nextCursor of the previous page, or none',
  )
}

export async function getExposedPrompt(
  core: GatewayCore,
  exposure: Exposure,
  caller: Caller,
  name: string,
  args: Record<string, string> | undefined,
  call: CallContext,
): Promise<GetPromptResult> {
  const split = splitNamespaced(name)
  if (!split)
    throw new GatewayError(
      'not_found',
      `Unknown prompt "${name}": prompt names are <upstream>__<prompt>; see prompts/list`,
    )
  const rt = core.registry.visible(caller).find((r) => r.config.name === split.upstream)
  if (!rt)
    throw new GatewayError(
      'not_found',
      `Unknown prompt "${name}": there is no upstream named "${split.upstream}"`,
    )
  if (isDisabled(core, rt.config.name, name))
    throw new GatewayError('not_found', `Unknown prompt "${name}": it is disabled on this gateway`)
  if (rt.promptsGeneration < 0 && !rt.conn.connected)
    throw new GatewayError(
      'unavailable',
      `upstream ${rt.config.name} is unreachable (${rt.conn.snapshot().lastError ?? 'not connected yet'}), so its prompts cannot be retrieved; try again shortly`,
    )
  const prompt = rt.prompts.find((p) => p.name === split.local)
  if (!prompt || !exposure.expose('prompt', rt.config.name, prompt.name))
    throw new GatewayError(
      'not_found',
      `Unknown prompt "${name}": upstream ${rt.config.name} has no prompt "${split.local}"`,
    )
  const checked = checkPromptArgs(name, prompt.arguments ?? [], args, core.config().prompts)
  if (!checked.ok) throw new GatewayError('invalid_input', checked.message)
  return getPrompt(rt.conn, prompt.name, checked.args, {
    signal: call.signal,
    timeoutMs: core.config().limits.callTimeoutMs,
  })
}
