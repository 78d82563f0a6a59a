import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { GatewayError, messageOf } from '../core/errors.js'

/** The one place where service errors become HTTP statuses for the admin API. */
export function httpStatusOf(err: unknown): ContentfulStatusCode {
  if (!(err instanceof GatewayError)) return 500
  switch (err.kind) {
    case 'invalid_input':
      return 400
    case 'forbidden':
      return 403
    case 'not_found':
      return 404
    case 'conflict':
      return 409
    case 'limit':
      return 429
    case 'unavailable':
      return 503
    default:
      return 500
  }
}

export function httpErrorBody(err: unknown): { error: string } {
  return { error: err instanceof GatewayError ? err.message : `internal error: ${messageOf(err)}` }
}
