/**
 * Naming rules of the external contract (interface.md §2). Pure functions only.
 */

/** Upstream and site names: lower-case slug, 1 to 24 characters, no `_` (so `__` can never be ambiguous). */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,22}[a-z0-9])?$/

/** Every name the gateway exposes: what Claude, OpenAI and Cursor all accept. */
export const EXPOSED_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/

export const NAMESPACE_SEPARATOR = '__'

export function namespaced(upstream: string, local: string): string {
  return `${upstream}${NAMESPACE_SEPARATOR}${local}`
}

/** Split on the first `__` only: an upstream's own tool names may contain `__`. */
export function splitNamespaced(name: string): { upstream: string; local: string } | undefined {
  const at = name.indexOf(NAMESPACE_SEPARATOR)
  if (at <= 0) return undefined
  const local = name.slice(at + NAMESPACE_SEPARATOR.length)
  return local.length > 0 ? { upstream: name.slice(0, at), local } : undefined
}

/** Why a namespaced name cannot be exposed, or undefined when it can. */
export function exposedNameProblem(name: string): string | undefined {
  if (name.length > 64) return `"${name}" is ${name.length} characters long; the limit is 64`
  if (!EXPOSED_NAME_PATTERN.test(name))
    return `"${name}" has characters outside [A-Za-z0-9_-], which clients reject`
  return undefined
}
