import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { APP_INFO, type UnifiApp } from '../../core/apps.js'
import { errorTextResult } from '../../core/json-text.js'
import { lenient, parseLenient } from '../../core/lenient-args.js'

/**
 * Argument shapes of the meta-tools. The upstream servers' own (tool, arguments, operations,
 * jobId, jobIds, tools, category, search, include_schemas) serve the simulator as they are;
 * the gateway adds `name`, `site` and `wait_ms`, and `*_batch_cancel`. The model names match
 * the captured tools/list titles, so validation messages read like the upstream's.
 */
export const UPSTREAM_META_ARGS = {
  tool_index: {
    model: '_tool_index_wrapperArguments',
    shape: {
      category: lenient.string(),
      search: lenient.string(),
      include_schemas: lenient.bool(false),
    },
  },
  execute: {
    model: 'execute_handlerArguments',
    shape: { tool: z.string(), arguments: lenient.object() },
  },
  batch: {
    model: 'batch_handlerArguments',
    shape: { operations: lenient.requiredArray(z.record(z.string(), z.unknown())) },
  },
  batch_status: {
    model: 'batch_status_handlerArguments',
    shape: { jobId: lenient.string(), jobIds: lenient.array(z.string()) },
  },
  load_tools: {
    model: 'load_tools_handlerArguments',
    shape: { tools: lenient.requiredArray(z.string()) },
  },
} as const

const U = UPSTREAM_META_ARGS

export const META_ARGS = {
  tool_index: {
    model: U.tool_index.model,
    shape: { ...U.tool_index.shape, name: lenient.string(), site: lenient.string() },
  },
  execute: { model: U.execute.model, shape: { ...U.execute.shape, site: lenient.string() } },
  batch: U.batch,
  batch_status: {
    model: U.batch_status.model,
    shape: { ...U.batch_status.shape, wait_ms: lenient.int() },
  },
  batch_cancel: { model: 'batch_cancel_handlerArguments', shape: U.batch_status.shape },
  load_tools: {
    model: U.load_tools.model,
    shape: { ...U.load_tools.shape, site: lenient.string() },
  },
} as const

type MetaArgs = typeof META_ARGS
export type MetaArgsOf<K extends keyof MetaArgs> = z.output<z.ZodObject<MetaArgs[K]['shape']>>

/** Parse a gateway meta-tool's arguments, or the `isError` result to answer with. */
export function parseMetaArgs<K extends keyof MetaArgs>(
  app: UnifiApp,
  suffix: K,
  args: Record<string, unknown> | undefined,
): { value: MetaArgsOf<K> } | { error: CallToolResult } {
  const { model, shape } = META_ARGS[suffix]
  const parsed = parseLenient(
    `${APP_INFO[app].prefix}_${suffix}`,
    model,
    shape as MetaArgs[K]['shape'],
    args,
  )
  return parsed.ok
    ? { value: parsed.value as MetaArgsOf<K> }
    : { error: errorTextResult(parsed.message) }
}
