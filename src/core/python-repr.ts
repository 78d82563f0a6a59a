/**
 * Python's repr() of JSON values, so that argument errors read exactly like the upstream
 * servers' pydantic messages (`input_value={'confirm': False}`).
 */
export function pyRepr(value: unknown, depth = 0): string {
  if (depth > 6) return '...'
  if (value === null || value === undefined) return 'None'
  if (value === true) return 'True'
  if (value === false) return 'False'
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(value)
  if (typeof value === 'string') return pyStr(value)
  if (Array.isArray(value)) return `[${value.map((v) => pyRepr(v, depth + 1)).join(', ')}]`
  if (typeof value === 'object') {
    const items = Object.entries(value).map(([k, v]) => `${pyStr(k)}: ${pyRepr(v, depth + 1)}`)
    return `{${items.join(', ')}}`
  }
  return pyStr(String(value))
}

function pyStr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'"
  const body = s
    .replace(/\\/g, '\\\\')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')
  return quote === "'" ? `'${body.replace(/'/g, "\\'")}'` : `"${body}"`
}

export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType'
  if (typeof value === 'boolean') return 'bool'
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float'
  if (typeof value === 'string') return 'str'
  if (Array.isArray(value)) return 'list'
  return 'dict'
}
