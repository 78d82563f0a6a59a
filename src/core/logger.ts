/**
 * Structured logs: one JSON object per line on stderr (stdout belongs to MCP over stdio).
 * Secrets never reach the sink: values under secret-looking keys are replaced, and
 * anything that looks like a bearer credential inside a string is masked.
 */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

export type LogFields = Record<string, unknown>

export interface Logger {
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
  child(fields: LogFields): Logger
}

export type LogSink = (line: string) => void

const SECRET_KEY = /token|secret|password|passwd|authorization|api[-_]?key|bearer|cookie|psk/i
const BEARER_IN_TEXT = /(bearer\s+)[^\s"',;]+/gi
export const REDACTED = '[redacted]'

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[deep]'
  if (typeof value === 'string') return value.replace(BEARER_IN_TEXT, `$1${REDACTED}`)
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1))
  if (value instanceof Error) return { message: redact(value.message, depth + 1) }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_KEY.test(k) && v !== undefined && v !== null ? REDACTED : redact(v, depth + 1)
    }
    return out
  }
  return value
}

export function createLogger(
  options: { level?: LogLevel; sink?: LogSink; fields?: LogFields } = {},
): Logger {
  const min = LOG_LEVELS.indexOf(options.level ?? 'info')
  const sink: LogSink = options.sink ?? ((line) => process.stderr.write(`${line}\n`))
  const bound = options.fields ?? {}
  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (LOG_LEVELS.indexOf(level) < min) return
    const record = redact({ time: new Date().toISOString(), level, msg, ...bound, ...fields })
    try {
      sink(JSON.stringify(record))
    } catch {
      // A log line must never take the gateway down (e.g. EPIPE on a closed stderr).
    }
  }
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => createLogger({ ...options, fields: { ...bound, ...fields } }),
  }
}
