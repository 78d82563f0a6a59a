import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { GatewayError, messageOf } from '../core/errors.js'

/**
 * A JSON-RPC error as the SDK's server sends it: it copies `code` and `message` from what a
 * handler throws. (Throwing McpError would prefix "MCP error <code>:" once more on every hop.)
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
  }
}

const SDK_PREFIX = /^MCP error -?\d+: /

/**
 * The one place where service errors become JSON-RPC errors. Unknown names and bad
 * arguments are -32602 (MCP tools/prompts specs); an upstream's own JSON-RPC error passes
 * through with its code; anything else is -32603 with a message naming what failed.
 */
export function toRpcError(err: unknown): RpcError {
  if (err instanceof McpError) return new RpcError(err.code, err.message.replace(SDK_PREFIX, ''))
  if (err instanceof GatewayError) {
    switch (err.kind) {
      case 'not_found':
      case 'invalid_input':
        return new RpcError(ErrorCode.InvalidParams, err.message)
      case 'timeout':
        return new RpcError(ErrorCode.RequestTimeout, err.message)
      default:
        return new RpcError(ErrorCode.InternalError, err.message)
    }
  }
  return new RpcError(ErrorCode.InternalError, `internal error: ${messageOf(err)}`)
}
