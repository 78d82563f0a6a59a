import type { z } from 'zod'

/** One problem in a config, located by its JSON path (e.g. `upstreams[0].url`). */
export type ConfigIssue = { path: string; message: string }

export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  constructor(
    readonly source: string,
    readonly issues: readonly ConfigIssue[],
  ) {
    super(`${source}: ${issues.length} problem(s)\n${formatIssues(issues)}`)
  }
}

export function formatIssues(issues: readonly ConfigIssue[]): string {
  return issues.map((i) => `  ${i.path || '(root)'}: ${i.message}`).join('\n')
}

export function jsonPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key
    else out += `[${JSON.stringify(String(key))}]`
  }
  return out
}

/** zod issues as config issues: one line per unknown key, each with its own path. */
export function issuesFromZod(
  error: z.ZodError,
  prefix: readonly PropertyKey[] = [],
): ConfigIssue[] {
  const out: ConfigIssue[] = []
  for (const issue of error.issues) {
    const path = [...prefix, ...issue.path]
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        out.push({ path: jsonPath([...path, key]), message: 'unknown key (check its spelling)' })
      continue
    }
    if (issue.code === 'invalid_union' && 'errors' in issue && issue.errors.length > 0) {
      out.push({ path: jsonPath(path), message: issue.message })
      continue
    }
    out.push({ path: jsonPath(path), message: issue.message })
  }
  return out
}
