/**
 * Who is asking. Services take the caller explicitly (never from ambient state), which is
 * what makes "a job is visible only to its token" and site allow-lists testable.
 */
export type Caller = {
  /** The token's name from the config (`auth.tokens[].name`), or `stdio` / `anonymous`. */
  readonly name: string
  /** Sites this caller may see and reach. */
  readonly sites: ReadonlySet<string> | 'all'
}

export function canSeeSite(caller: Caller, site: string): boolean {
  return caller.sites === 'all' || caller.sites.has(site)
}

export function callerFromSites(name: string, sites: readonly string[]): Caller {
  return { name, sites: sites.includes('*') ? 'all' : new Set(sites) }
}

export const STDIO_CALLER: Caller = { name: 'stdio', sites: 'all' }
export const ANONYMOUS_CALLER: Caller = { name: 'anonymous', sites: 'all' }
