import { readFile } from 'node:fs/promises'
import { expandEnv } from '../config/env-expand.js'
import type { ConfigIssue } from '../config/issues.js'
import { err, out, parse, UsageError } from './args.js'

export const ADMIN_USAGE = `unifi-mcp-gateway register [FILE.json] [--name N --upstream-url U | --command C [--arg A]...]
    [--transport streamable_http|stdio] [--site S] [--app network|protect|access|generic]
    [--description D] [--bearer-token-env VAR] [--header "K: V"]... [--env K=V]... [--read-only] [--force]
unifi-mcp-gateway deregister NAME
unifi-mcp-gateway list [--json]
unifi-mcp-gateway enable NAME | disable NAME

Talk to a running gateway's admin API: --url (default GATEWAY_URL, else http://127.0.0.1:8080),
token from GATEWAY_ADMIN_TOKEN. \${VAR} in a registration file is expanded from this shell's
environment. Exit codes: 0 done, 1 refused by the gateway or unreachable, 2 bad usage or input.`

type Env = Readonly<Record<string, string | undefined>>

class Refused extends Error {}

async function api(
  env: Env,
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const token = env.GATEWAY_ADMIN_TOKEN
  if (!token) throw new UsageError("set GATEWAY_ADMIN_TOKEN to the gateway's admin token")
  let res: Response
  try {
    res = await fetch(new URL(path, base.endsWith('/') ? base : `${base}/`), {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    })
  } catch (e) {
    const cause = (e as { cause?: { message?: string } }).cause?.message
    throw new Refused(`cannot reach the gateway at ${base}: ${cause ?? String(e)}`)
  }
  const text = await res.text()
  const json = text ? (JSON.parse(text) as unknown) : undefined
  if (!res.ok) {
    const message = (json as { error?: string } | undefined)?.error ?? `HTTP ${res.status}`
    if (res.status === 400) throw new UsageError(message)
    throw new Refused(`${message} (HTTP ${res.status})`)
  }
  return json
}

function table(rows: Record<string, unknown>[], columns: [string, string][]): string {
  const cells = rows.map((r) => columns.map(([key]) => String(r[key] ?? '')))
  const widths = columns.map(([, title], i) =>
    Math.max(title.length, ...cells.map((c) => (c[i] as string).length)),
  )
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i] as number))
      .join('  ')
      .trimEnd()
  return [line(columns.map(([, t]) => t)), ...cells.map(line)].join('\n')
}

function keyValues(list: string[] | undefined, sep: string, what: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const item of list ?? []) {
    const at = item.indexOf(sep)
    if (at <= 0) throw new UsageError(`${what} must look like KEY${sep}VALUE, got "${item}"`)
    out[item.slice(0, at).trim()] = item.slice(at + sep.length).trim()
  }
  return out
}

async function serverFromFile(file: string, env: Env): Promise<unknown> {
  let raw: unknown
  try {
    raw = JSON.parse(await readFile(file, 'utf8'))
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`)
  }
  const issues: ConfigIssue[] = []
  const expanded = expandEnv(raw, env, issues)
  if (issues.length > 0)
    throw new UsageError(issues.map((i) => `${i.path}: ${i.message}`).join('; '))
  return expanded
}

export async function runAdmin(command: string, argv: string[], env: Env): Promise<number> {
  const { values, positionals } = parse(argv, {
    url: { type: 'string' },
    json: { type: 'boolean', default: false },
    force: { type: 'boolean', default: false },
    name: { type: 'string' },
    transport: { type: 'string' },
    'upstream-url': { type: 'string' },
    command: { type: 'string' },
    arg: { type: 'string', multiple: true },
    env: { type: 'string', multiple: true },
    header: { type: 'string', multiple: true },
    'bearer-token-env': { type: 'string' },
    site: { type: 'string' },
    app: { type: 'string' },
    description: { type: 'string' },
    'read-only': { type: 'boolean', default: false },
  })
  const base = values.url ?? env.GATEWAY_URL ?? 'http://127.0.0.1:8080'
  try {
    switch (command) {
      case 'list': {
        const servers = (await api(env, base, 'GET', 'api/v0/servers')) as Record<string, unknown>[]
        if (values.json) out(JSON.stringify(servers, null, 2))
        else
          out(
            table(
              servers.map((s) => ({
                ...s,
                enabled: s.enabled ? 'yes' : 'no',
                where: s.url ?? s.command,
              })),
              [
                ['name', 'NAME'],
                ['site', 'SITE'],
                ['app', 'APP'],
                ['transport', 'TRANSPORT'],
                ['enabled', 'ENABLED'],
                ['status', 'STATUS'],
                ['tools', 'TOOLS'],
                ['prompts', 'PROMPTS'],
                ['source', 'SOURCE'],
                ['where', 'URL/COMMAND'],
              ],
            ),
          )
        return 0
      }
      case 'register': {
        let body: Record<string, unknown>
        if (positionals[0])
          body = (await serverFromFile(positionals[0], env)) as Record<string, unknown>
        else {
          if (!values.name)
            throw new UsageError('give a JSON file, or --name with --upstream-url or --command')
          const stdio = values.command !== undefined
          if (stdio === (values['upstream-url'] !== undefined))
            throw new UsageError('give exactly one of --upstream-url and --command')
          const tokenVar = values['bearer-token-env']
          if (tokenVar && env[tokenVar] === undefined)
            throw new UsageError(`environment variable ${tokenVar} is not set`)
          body = {
            name: values.name,
            transport: values.transport ?? (stdio ? 'stdio' : 'streamable_http'),
            ...(values.site ? { site: values.site } : {}),
            ...(values.app ? { app: values.app } : {}),
            ...(values.description ? { description: values.description } : {}),
            ...(values['read-only'] ? { readOnly: true } : {}),
            ...(stdio
              ? {
                  command: values.command,
                  args: values.arg ?? [],
                  env: keyValues(values.env, '=', '--env'),
                }
              : {
                  url: values['upstream-url'],
                  headers: keyValues(values.header, ':', '--header'),
                  ...(tokenVar ? { bearer_token: env[tokenVar] } : {}),
                }),
          }
        }
        const server = (await api(
          env,
          base,
          'POST',
          `api/v0/servers${values.force ? '?force=true' : ''}`,
          body,
        )) as Record<string, unknown>
        out(
          `registered ${server.name} (site ${server.site}, ${server.app}, ${server.transport}): ${server.status}, ${server.tools} tools, ${server.prompts} prompts`,
        )
        if (server.lastError) out(`  last error: ${server.lastError}`)
        return 0
      }
      case 'deregister':
      case 'enable':
      case 'disable': {
        const name = positionals[0]
        if (!name) throw new UsageError(`${command} needs the upstream's NAME`)
        const path = `api/v0/servers/${encodeURIComponent(name)}`
        if (command === 'deregister') {
          await api(env, base, 'DELETE', path)
          out(`deregistered ${name}`)
        } else {
          const r = (await api(env, base, 'POST', `${path}/${command}`)) as Record<string, unknown>
          out(
            `${command}d ${name} (${r.tools_affected} tools, ${r.prompts_affected} prompts affected)`,
          )
        }
        return 0
      }
      default:
        throw new UsageError(`unknown command ${command}`)
    }
  } catch (e) {
    if (e instanceof Refused) {
      err(`${command}: ${e.message}`)
      return 1
    }
    throw e
  }
}
