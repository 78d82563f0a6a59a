import { APP_INFO, type UnifiApp } from '../core/apps.js'

export type SiteChoice = { ok: true; site: string } | { ok: false; message: string }

/**
 * Pick the site a call goes to. `sites` are the app's sites this caller may use, sorted.
 * A site the caller may not use is reported exactly like one that does not exist.
 */
export function chooseSite(
  app: UnifiApp,
  sites: readonly string[],
  requested: string | undefined,
): SiteChoice {
  const label = APP_INFO[app].label
  if (sites.length === 0)
    return { ok: false, message: `no ${label} upstream is available to this client` }
  if (requested !== undefined && requested !== '') {
    if (sites.includes(requested)) return { ok: true, site: requested }
    return {
      ok: false,
      message: `site "${requested}" has no ${label} upstream on this gateway; sites: ${sites.join(', ')}`,
    }
  }
  if (sites.length === 1) return { ok: true, site: sites[0] as string }
  return {
    ok: false,
    message: `site is required: ${label} runs on ${sites.length} sites (${sites.join(', ')}); pass "site": "${sites[0]}", for example`,
  }
}
