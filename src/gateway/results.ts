import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { isGatewayError } from '../core/errors.js'
import { jsonResult } from '../core/json-text.js'
import type { CallOutcome } from './context.js'

/**
 * The upstream's handled-error shape for `*_execute`: a normal result (`isError: false`)
 * with an `"error"` key (reference §3.0, §3.2). Gateway failures use it too, so a client
 * written for the upstream reads them the same way.
 */
export function executeError(message: string): CallToolResult {
  return jsonResult({ error: `Failed to execute tool: ${message}` })
}

export function outcomeOf(err: unknown): CallOutcome {
  if (isGatewayError(err, 'timeout')) return 'timeout'
  if (isGatewayError(err, 'cancelled')) return 'cancelled'
  if (isGatewayError(err, 'unavailable')) return 'unavailable'
  return 'error'
}
