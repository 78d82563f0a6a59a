import { readFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { crossCheck } from './cross-check.js'
import { expandEnv } from './env-expand.js'
import { ConfigError, type ConfigIssue, issuesFromZod } from './issues.js'
import { type Config, ConfigSchema, RegistrationModeSchema } from './schema.js'

export type Env = Readonly<Record<string, string | undefined>>

/** A JSON parse error with the line and column people need to find it. */
function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text)
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    const at = /position (\d+)/.exec(message)
    let where = ''
    if (at) {
      const pos = Number(at[1])
      const before = text.slice(0, pos).split('\n')
      where = ` (line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1})`
    }
    throw new ConfigError(source, [{ path: '', message: `not valid JSON${where}: ${message}` }])
  }
}

/**
 * Apply environment overrides (interface.md §4). GATEWAY_TOKEN adds an all-sites token named
 * `default` when the file defines none; with tokens in the file, reference it as ${GATEWAY_TOKEN}.
 */
function applyEnvOverrides(raw: unknown, env: Env, issues: ConfigIssue[]): unknown {
  const config = (
    raw && typeof raw === 'object' && !Array.isArray(raw) ? { ...raw } : {}
  ) as Record<string, unknown>
  const obj = (key: string): Record<string, unknown> => {
    const v = config[key]
    const copy = v && typeof v === 'object' && !Array.isArray(v) ? { ...v } : {}
    config[key] = copy
    return copy as Record<string, unknown>
  }
  if (env.GATEWAY_HOST) obj('listen').host = env.GATEWAY_HOST
  if (env.GATEWAY_PORT) {
    const port = Number(env.GATEWAY_PORT)
    if (!Number.isInteger(port) || port < 0 || port > 65_535)
      issues.push({
        path: 'env.GATEWAY_PORT',
        message: `"${env.GATEWAY_PORT}" is not a port number`,
      })
    else obj('listen').port = port
  }
  if (env.GATEWAY_ADMIN_TOKEN) obj('auth').adminToken = env.GATEWAY_ADMIN_TOKEN
  if (env.GATEWAY_TOKEN) {
    const auth = obj('auth')
    const tokens = Array.isArray(auth.tokens) ? auth.tokens : []
    if (tokens.length === 0)
      auth.tokens = [{ name: 'default', token: env.GATEWAY_TOKEN, sites: ['*'] }]
  }
  if (env.GATEWAY_TOOL_REGISTRATION_MODE) {
    const mode = RegistrationModeSchema.safeParse(env.GATEWAY_TOOL_REGISTRATION_MODE.toLowerCase())
    if (mode.success) config.registrationMode = mode.data
    else
      issues.push({
        path: 'env.GATEWAY_TOOL_REGISTRATION_MODE',
        message: `"${env.GATEWAY_TOOL_REGISTRATION_MODE}" is not one of lazy, meta_only, eager`,
      })
  }
  return config
}

/** Validate an in-memory config object (already JSON) with env expansion and overrides. */
export function parseConfig(raw: unknown, env: Env, source = 'config'): Config {
  const issues: ConfigIssue[] = []
  const expanded = applyEnvOverrides(expandEnv(raw, env, issues), env, issues)
  const parsed = ConfigSchema.safeParse(expanded)
  // A variable that is not set already has its problem; do not also report the empty value.
  const unset = new Set(issues.map((i) => i.path))
  if (!parsed.success) issues.push(...issuesFromZod(parsed.error).filter((i) => !unset.has(i.path)))
  issues.push(...crossCheck(expanded))
  if (issues.length > 0 || !parsed.success) throw new ConfigError(source, issues)
  return parsed.data
}

export type LoadedConfig = { config: Config; file?: string; stateFile: string }

/** Read, expand and validate a config file. Throws ConfigError listing every problem. */
export async function loadConfigFile(file: string, env: Env): Promise<LoadedConfig> {
  const path = resolve(file)
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err)
    throw new ConfigError(file, [{ path: '', message: `cannot read the file (${code})` }])
  }
  const config = parseConfig(parseJson(text, file), env, file)
  const stateFile = resolve(dirname(path), config.stateFile ?? 'gateway-state.json')
  return { config, file: path, stateFile }
}
