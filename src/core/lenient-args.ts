import { z } from 'zod'
import { pyRepr, pyTypeName } from './python-repr.js'

/**
 * Meta-tool arguments are parsed the way the upstream FastMCP servers parse them
 * (reference §3.0 "Lenient coercion"): LLM clients send `"arguments": "{\"limit\": 5}"`,
 * `"include_schemas": "yes"` or `"limit": "5"`, and those must work here too.
 */

/** A JSON-looking string becomes its value (FastMCP pre-parses arguments that are not typed str). */
function parseJsonString(value: unknown): unknown {
  if (typeof value !== 'string') return value
  const trimmed = value.trim()
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return value
  try {
    return JSON.parse(trimmed)
  } catch {
    return value
  }
}

const TRUE_WORDS = new Set(['true', 't', 'yes', 'y', 'on', '1'])
const FALSE_WORDS = new Set(['false', 'f', 'no', 'n', 'off', '0'])

/** pydantic's lax bool: the usual words, and the integers 0 and 1. */
function toBool(value: unknown): unknown {
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase()
    if (TRUE_WORDS.has(word)) return true
    if (FALSE_WORDS.has(word)) return false
  }
  if (value === 1) return true
  if (value === 0) return false
  return value
}

/** pydantic's lax int: numeric strings and whole floats. */
function toInt(value: unknown): unknown {
  if (typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value)) return Number(value)
  if (typeof value === 'number' && Number.isInteger(value)) return value
  return value
}

/** null means "not given" for optional fields, as in the Python signatures (`= None`). */
const nullToUndefined = (v: unknown) => (v === null ? undefined : v)

export const lenient = {
  string: () => z.preprocess(nullToUndefined, z.string().optional()),
  requiredString: () => z.string(),
  bool: (fallback: boolean) =>
    z.preprocess((v) => (v === null || v === undefined ? fallback : toBool(v)), z.boolean()),
  int: () => z.preprocess((v) => (v === null ? undefined : toInt(v)), z.number().int().optional()),
  object: () =>
    z.preprocess(
      (v) => nullToUndefined(parseJsonString(v)),
      z.record(z.string(), z.unknown()).optional(),
    ),
  array: <T extends z.ZodType>(item: T) =>
    z.preprocess((v) => nullToUndefined(parseJsonString(v)), z.array(item).optional()),
  requiredArray: <T extends z.ZodType>(item: T) =>
    z.preprocess((v) => parseJsonString(v), z.array(item)),
}

/**
 * The upstream's strict-dispatch message for unknown top-level arguments
 * (packages/unifi-mcp-shared strict_dispatch.py).
 */
export function unknownArgumentsMessage(
  tool: string,
  unknown: readonly string[],
  allowed: readonly string[],
): string {
  const u = [...unknown].sort().join(', ')
  const a = [...allowed].sort().join(', ')
  return `Invalid params for '${tool}': unknown arguments {${u}}. Valid arguments: [${a}].`
}

export function unknownKeys(args: Record<string, unknown>, allowed: readonly string[]): string[] {
  return Object.keys(args).filter((k) => !allowed.includes(k))
}

const PYDANTIC_TEXT: Record<string, [string, string]> = {
  string: ['Input should be a valid string', 'string_type'],
  boolean: ['Input should be a valid boolean', 'bool_parsing'],
  number: ['Input should be a valid integer', 'int_parsing'],
  array: ['Input should be a valid list', 'list_type'],
  record: ['Input should be a valid dictionary', 'dict_type'],
  object: ['Input should be a valid dictionary', 'dict_type'],
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let cur = input
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined
    cur = (cur as Record<PropertyKey, unknown>)[key]
  }
  return cur
}

/**
 * A zod failure written as pydantic writes it, prefixed the way FastMCP reports a tool
 * whose arguments failed validation:
 * `Error executing tool unifi_batch: 1 validation error for batch_handlerArguments\noperations\n  Input should be a valid list [type=list_type, input_value='x', input_type=str]`
 */
export function pydanticMessage(
  tool: string,
  model: string,
  error: z.ZodError,
  input: Record<string, unknown>,
): string {
  const lines: string[] = []
  for (const issue of error.issues) {
    const loc = issue.path.map(String).join('.')
    const value = valueAt(input, issue.path)
    if (value === undefined && issue.code === 'invalid_type') {
      lines.push(
        `${loc}\n  Field required [type=missing, input_value=${pyRepr(input)}, input_type=dict]`,
      )
      continue
    }
    const expected = issue.code === 'invalid_type' ? String(issue.expected) : ''
    const [text, type] = PYDANTIC_TEXT[expected] ?? [issue.message, 'value_error']
    lines.push(
      `${loc}\n  ${text} [type=${type}, input_value=${pyRepr(value)}, input_type=${pyTypeName(value)}]`,
    )
  }
  const n = error.issues.length
  return `Error executing tool ${tool}: ${n} validation error${n === 1 ? '' : 's'} for ${model}\n${lines.join('\n')}`
}

// Building a zod object compiles it; argument shapes are static, so build each once.
const OBJECTS = new WeakMap<z.ZodRawShape, z.ZodObject>()

export type LenientParse<T> = { ok: true; value: T } | { ok: false; message: string }

/**
 * Parse a tool's top-level arguments as the upstream's dispatch does: unknown keys first
 * (strict dispatch), then lax validation with pydantic-style messages.
 */
export function parseLenient<S extends z.ZodRawShape>(
  tool: string,
  model: string,
  shape: S,
  args: Record<string, unknown> | undefined,
): LenientParse<z.output<z.ZodObject<S>>> {
  const input = args ?? {}
  const allowed = Object.keys(shape)
  const unknown = unknownKeys(input, allowed)
  if (unknown.length > 0)
    return { ok: false, message: unknownArgumentsMessage(tool, unknown, allowed) }
  let schema = OBJECTS.get(shape)
  if (!schema) {
    schema = z.object(shape)
    OBJECTS.set(shape, schema)
  }
  const parsed = schema.safeParse(input)
  if (!parsed.success)
    return { ok: false, message: pydanticMessage(tool, model, parsed.error, input) }
  return { ok: true, value: parsed.data as z.output<z.ZodObject<S>> }
}
