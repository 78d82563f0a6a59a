/**
 * Validation of prompt arguments before they are forwarded (or rendered, in the sim):
 * required ones present and non-empty after trimming, unknown ones rejected, values are
 * strings within a length cap, no control characters (other Unicode is kept).
 */
export type PromptArgSpec = {
  name: string
  required?: boolean | undefined
  description?: string | undefined
}
export type PromptArgLimits = { maxTextLength: number; maxIdentifierLength: number }

export type PromptArgCheck =
  | { ok: true; args: Record<string, string> }
  | { ok: false; message: string }

/**
 * Identifiers and focus strings get the short cap; free text (symptoms, a requested change,
 * constraints) the long one. Decided by the argument's name: `site_id`, `clientIdentifier`,
 * `focus`, `controller`, `time_window`, `name`, ... are identifiers.
 */
export function isIdentifierArg(name: string): boolean {
  const snake = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase()
  return /(^|_)(id|ids|identifier|name|site|controller|focus|scope|window|mac|ip|host|type|label)($|_)/.test(
    snake,
  )
}

/**
 * C0 controls (tab, newline and carriage return are allowed in free text), DEL, C1 controls,
 * and the bidirectional overrides that can make text display differently from what it is.
 */
function hasControlCharacter(value: string, allowLineBreaks: boolean): boolean {
  for (const ch of value) {
    const c = ch.codePointAt(0) ?? 0
    if (allowLineBreaks && (c === 0x09 || c === 0x0a || c === 0x0d)) continue
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true
    if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) return true
  }
  return false
}

export function checkPromptArgs(
  prompt: string,
  specs: readonly PromptArgSpec[],
  given: Readonly<Record<string, unknown>> | undefined,
  limits: PromptArgLimits,
): PromptArgCheck {
  const args = given ?? {}
  const known = new Set(specs.map((s) => s.name))
  const unknown = Object.keys(args).filter((k) => !known.has(k))
  const takes = specs.length > 0 ? specs.map((s) => s.name).join(', ') : 'no arguments'
  if (unknown.length > 0)
    return {
      ok: false,
      message: `prompt ${prompt} does not take ${unknown.map((u) => `"${u}"`).join(', ')}; it takes: ${takes}`,
    }
  const out: Record<string, string> = {}
  for (const spec of specs) {
    const value = args[spec.name]
    if (value === undefined || value === null) {
      if (spec.required)
        return { ok: false, message: `prompt ${prompt} needs "${spec.name}" (takes: ${takes})` }
      continue
    }
    if (typeof value !== 'string')
      return { ok: false, message: `argument "${spec.name}" of prompt ${prompt} must be a string` }
    if (spec.required && value.trim() === '')
      return { ok: false, message: `argument "${spec.name}" of prompt ${prompt} must not be empty` }
    const identifier = isIdentifierArg(spec.name)
    const cap = identifier ? limits.maxIdentifierLength : limits.maxTextLength
    if ([...value].length > cap)
      return {
        ok: false,
        message: `argument "${spec.name}" of prompt ${prompt} is ${[...value].length} characters long; the limit is ${cap}`,
      }
    if (hasControlCharacter(value, !identifier))
      return {
        ok: false,
        message: `argument "${spec.name}" of prompt ${prompt} contains a control character; send plain text`,
      }
    out[spec.name] = value
  }
  return { ok: true, args: out }
}
