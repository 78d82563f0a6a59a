import { createHash, timingSafeEqual } from 'node:crypto'
import type { ClientToken } from '../config/schema.js'
import { type Caller, callerFromSites } from '../core/caller.js'

/**
 * Pure checks for the HTTP edge: DNS-rebinding protection (Host and Origin) and bearer
 * tokens compared in constant time.
 */
const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

export function isLoopbackAddress(host: string): boolean {
  return LOOPBACK_HOSTNAMES.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host)
}

/** `example.com:8080` → `example.com`; `[::1]:8080` → `[::1]`. */
export function hostnameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase()
  if (h.startsWith('[')) {
    const end = h.indexOf(']')
    return end > 0 ? h.slice(0, end + 1) : h
  }
  const colon = h.lastIndexOf(':')
  return colon >= 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h
}

export type OriginPolicy = {
  allowedHosts: readonly string[]
  allowedOrigins: readonly string[]
  bindHost: string
}

/** Why a request's Host is refused, or undefined. Loopback names are always allowed. */
export function hostProblem(host: string | undefined, policy: OriginPolicy): string | undefined {
  if (!host) return 'missing Host header'
  const name = hostnameOf(host)
  if (isLoopbackAddress(name)) return undefined
  const allowed = policy.allowedHosts.map((h) => h.toLowerCase())
  if (allowed.includes(host.toLowerCase()) || allowed.includes(name)) return undefined
  if (
    policy.bindHost !== '0.0.0.0' &&
    policy.bindHost !== '::' &&
    hostnameOf(policy.bindHost) === name
  )
    return undefined
  return `Host "${host}" is not allowed (add it to listen.allowedHosts)`
}

/** Why a request's Origin is refused, or undefined (no Origin is fine: not a browser). */
export function originProblem(
  origin: string | undefined,
  policy: OriginPolicy,
): string | undefined {
  if (origin === undefined) return undefined
  if (policy.allowedOrigins.includes(origin)) return undefined
  try {
    const url = new URL(origin)
    if ((url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackAddress(url.hostname))
      return undefined
  } catch {
    // fall through: not a URL (e.g. "null")
  }
  return `Origin "${origin}" is not allowed (add it to listen.allowedOrigins)`
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()

export type TokenTable = { readonly entries: readonly { digest: Buffer; caller: Caller }[] }

export function tokenTable(tokens: readonly ClientToken[]): TokenTable {
  return {
    entries: tokens.map((t) => ({
      digest: digest(t.token),
      caller: callerFromSites(t.name, t.sites),
    })),
  }
}

export function bearerOf(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  return match?.[1]
}

/**
 * The caller a bearer token belongs to. Every entry is compared, with no early exit, on
 * fixed-length digests, so timing reveals neither which token matched nor how much of it.
 */
export function findCaller(
  table: TokenTable,
  authorization: string | undefined,
): Caller | undefined {
  const presented = bearerOf(authorization)
  if (presented === undefined) return undefined
  const d = digest(presented)
  let found: Caller | undefined
  for (const entry of table.entries) if (timingSafeEqual(entry.digest, d)) found ??= entry.caller
  return found
}

export function tokenMatches(
  expected: string | undefined,
  authorization: string | undefined,
): boolean {
  const presented = bearerOf(authorization)
  if (expected === undefined || presented === undefined) return false
  return timingSafeEqual(digest(expected), digest(presented))
}
