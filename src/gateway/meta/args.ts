import { z } from 'zod'
import { lenient } from '../../core/lenient-args.js'

/**
 * Argument shapes of the gateway's meta-tools: the upstream's names (tool, arguments,
 * operations, jobId, jobIds, tools, category, search, include_schemas) plus the gateway's
 * own (name, site, wait_ms). The model names match the captured tools/list titles, so
 * validation messages read like the upstream's.
 */
export const META_ARGS = {
  tool_index: {
    model: '_tool_index_wrapperArguments',
    shape: {
      category: lenient.string(),
      search: lenient.string(),
      include_schemas: lenient.bool(false),
      name: lenient.string(),
      site: lenient.string(),
    },
  },
  execute: {
    model: 'execute_handlerArguments',
    shape: { tool: z.string(), arguments: lenient.object(), site: lenient.string() },
  },
  batch: {
    model: 'batch_handlerArguments',
    shape: { operations: lenient.requiredArray(z.record(z.string(), z.unknown())) },
  },
  batch_status: {
    model: 'batch_status_handlerArguments',
    shape: { jobId: lenient.string(), jobIds: lenient.array(z.string()), wait_ms: lenient.int() },
  },
  batch_cancel: {
    model: 'batch_cancel_handlerArguments',
    shape: { jobId: lenient.string(), jobIds: lenient.array(z.string()) },
  },
  load_tools: {
    model: 'load_tools_handlerArguments',
    shape: { tools: lenient.requiredArray(z.string()), site: lenient.string() },
  },
} as const
