import { type ConfigIssue, jsonPath } from './issues.js'

const VAR = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}/g

/**
 * Replace `${VAR}` in every string of a JSON value (keys untouched), as MCPJungle does.
 * An unset variable is a problem that names the variable and where it is used;
 * `$${VAR}` stays a literal `${VAR}`.
 */
export function expandEnv(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
  issues: ConfigIssue[],
  path: PropertyKey[] = [],
): unknown {
  if (typeof value === 'string') {
    return value.replace(VAR, (whole, escaped: string, name: string) => {
      if (escaped) return whole.slice(1)
      const found = env[name]
      if (found === undefined) {
        issues.push({
          path: jsonPath(path),
          message: `environment variable ${name} is not set (export it, or remove \${${name}} from the file)`,
        })
        return ''
      }
      return found
    })
  }
  if (Array.isArray(value)) return value.map((v, i) => expandEnv(v, env, issues, [...path, i]))
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = expandEnv(v, env, issues, [...path, k])
    return out
  }
  return value
}
