import type { ConfigIssue } from './issues.js'

/**
 * Checks that span entries (duplicate names, one UniFi app per site, distinct tokens).
 * They run on the raw input, so they are reported together with schema problems instead
 * of only after every entry is valid.
 */
type Rec = Record<string, unknown>
const isRec = (v: unknown): v is Rec => !!v && typeof v === 'object' && !Array.isArray(v)
const str = (v: unknown) => (typeof v === 'string' ? v : undefined)

export function crossCheck(raw: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  if (!isRec(raw)) return issues
  const upstreams = Array.isArray(raw.upstreams) ? raw.upstreams : []
  const names = new Map<string, number>()
  const slots = new Map<string, number>()
  upstreams.forEach((u, i) => {
    if (!isRec(u)) return
    const name = str(u.name)
    if (name !== undefined) {
      const seen = names.get(name)
      if (seen !== undefined)
        issues.push({
          path: `upstreams[${i}].name`,
          message: `duplicate upstream name "${name}" (also upstreams[${seen}])`,
        })
      else names.set(name, i)
    }
    const app = str(u.app) ?? 'generic'
    const site = str(u.site) ?? name
    if (app !== 'generic' && site !== undefined) {
      const slot = `${site}/${app}`
      const other = slots.get(slot)
      if (other !== undefined)
        issues.push({
          path: `upstreams[${i}].site`,
          message: `site "${site}" already has a ${app} upstream (upstreams[${other}]); at most one per site and app`,
        })
      else slots.set(slot, i)
    }
  })
  const auth = isRec(raw.auth) ? raw.auth : {}
  const tokens = Array.isArray(auth.tokens) ? auth.tokens : []
  const tokenNames = new Set<string>()
  const tokenValues = new Set<string>()
  const admin = str(auth.adminToken)
  tokens.forEach((t, i) => {
    if (!isRec(t)) return
    const name = str(t.name)
    const value = str(t.token)
    if (name !== undefined && tokenNames.has(name))
      issues.push({ path: `auth.tokens[${i}].name`, message: `duplicate token name "${name}"` })
    if (value && tokenValues.has(value))
      issues.push({
        path: `auth.tokens[${i}].token`,
        message: 'the same token value is used twice; give each client its own token',
      })
    if (value && admin && value === admin)
      issues.push({
        path: `auth.tokens[${i}].token`,
        message: 'a client token must differ from auth.adminToken',
      })
    if (name !== undefined) tokenNames.add(name)
    if (value) tokenValues.add(value)
  })
  return issues
}
