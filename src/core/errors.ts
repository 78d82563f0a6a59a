/**
 * The closed set of failures services may raise. Each edge maps them once:
 * `server/http-errors.ts` to HTTP statuses, `gateway/results.ts` to the upstream's
 * `{"error": ...}` result shape. Messages are written for the person or model that
 * reads them: they say what went wrong and what to do next.
 */
export type GatewayErrorKind =
  | 'invalid_input'
  | 'not_found'
  | 'conflict'
  | 'forbidden'
  | 'unavailable'
  | 'upstream'
  | 'timeout'
  | 'cancelled'
  | 'limit'

export class GatewayError extends Error {
  override readonly name = 'GatewayError'
  constructor(
    readonly kind: GatewayErrorKind,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options)
  }
}

export function isGatewayError(err: unknown, kind?: GatewayErrorKind): err is GatewayError {
  return err instanceof GatewayError && (kind === undefined || err.kind === kind)
}

/** A readable one-line message from anything thrown. */
export function messageOf(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause
    // fetch() failures hide the useful part ("connect ECONNREFUSED ...") in `cause`.
    if (err.message === 'fetch failed' && cause instanceof Error) return cause.message
    return err.message
  }
  return String(err)
}
