/**
 * Python's `json.dumps(value, indent=2, sort_keys=True)` with its default `ensure_ascii`,
 * which is how the upstream writes tools_manifest.json; `manifest sync` output is
 * byte-identical to a manifest the upstream generated from the same tools.
 */
function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep)
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort())
      out[key] = sortDeep((value as Record<string, unknown>)[key])
    return out
  }
  return value
}

export function pythonJsonDump(value: unknown): string {
  return JSON.stringify(sortDeep(value), null, 2).replace(/[\u007f-\uffff]/g, (ch) =>
    ch === '\u007f' ? ch : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}
