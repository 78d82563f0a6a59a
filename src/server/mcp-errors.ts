import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { GatewayError, messageOf } from '../core/errors.js'

/**
 * The one place where service errors become JSON-RPC errors. Unknown names and bad
 * arguments are -32602 (MCP tools/prompts specs); an upstream's own JSON-RPC error passes
 * through unchanged; anything else is -32603 with a message naming what failed.
 */
export function toMcpError(err: unknown): McpError {
  if (err instanceof McpError) return err
  if (err instanceof GatewayError) {
    switch (err.kind) {
      case 'not_found':
      case 'invalid_input':
        return new McpError(ErrorCode.InvalidParams, err.message)
      case 'timeout':
        return new McpError(ErrorCode.RequestTimeout, err.message)
      default:
        return new McpError(ErrorCode.InternalError, err.message)
    }
  }
  return new McpError(ErrorCode.InternalError, `internal error: ${messageOf(err)}`)
}
