import { loadConfigFile } from '../config/load.js'
import { isLoopbackAddress } from '../server/guards.js'
import { out, parse, UsageError } from './args.js'

export const VALIDATE_USAGE = `unifi-mcp-gateway validate --config FILE

Checks a config file (JSON, \${VAR} expanded from the environment) and lists every problem
with its JSON path. Exit code 0 when valid, 2 otherwise.`

export async function runValidate(
  argv: string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const { values, positionals } = parse(argv, { config: { type: 'string' } })
  const file = values.config ?? positionals[0]
  if (!file) throw new UsageError('--config FILE is required')
  const { config } = await loadConfigFile(file, env)
  const warnings: string[] = []
  if (config.auth.tokens.length === 0)
    warnings.push(
      isLoopbackAddress(config.listen.host)
        ? 'no client token: /mcp will be open to anything on this machine'
        : `no client token: the gateway will refuse to start on ${config.listen.host}`,
    )
  if (!config.auth.adminToken) warnings.push('no admin token: the admin API (/api/v0) is disabled')
  if (!isLoopbackAddress(config.listen.host) && config.listen.allowedHosts.length === 0)
    warnings.push(
      `listening on ${config.listen.host} with no listen.allowedHosts: only loopback Host headers are accepted`,
    )
  out(
    `${file}: valid (${config.upstreams.length} upstream(s), ${config.auth.tokens.length} client token(s), mode ${config.registrationMode})`,
  )
  for (const w of warnings) out(`  warning: ${w}`)
  return 0
}
