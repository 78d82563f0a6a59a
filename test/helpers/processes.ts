import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

/** The built CLI (tests run from dist/test, the CLI is dist/src/cli/main.js). */
export const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url))

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

export async function tempDir(prefix = 'umg-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix))
}

function waitExit(child: ChildProcess, ms: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
    }, ms)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve(code)
    })
  })
}

export type Sim = {
  url: string
  /** Per-site URLs when started with --sites. */
  urls: Record<string, string>
  port: number
  child: ChildProcess
  stats(site?: string): Promise<SimStats>
  resetStats(site?: string): Promise<void>
  /** In flight over every site of a --sites process. */
  processStats(): Promise<{ inFlight: number; maxInFlight: number }>
  control(body: Record<string, unknown>): Promise<void>
  kill(signal?: NodeJS.Signals): Promise<void>
}

export type SimStats = {
  inFlight: number
  maxInFlight: number
  calls: number
  cancelled: number
  byTool: Record<string, number>
  requests: Record<string, number>
  authorizations: string[]
  sessions: number
}

/** A simulator process over Streamable HTTP on loopback. */
export async function startSim(
  app: 'network' | 'protect' | 'access',
  site: string,
  extra: string[] = [],
  port = 0,
): Promise<Sim> {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'sim',
      '--app',
      app,
      '--site',
      site,
      '--port',
      String(port),
      '--exit-on-stdin-close',
      ...extra,
    ],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  )
  let stderr = ''
  child.stderr?.on('data', (d) => {
    stderr += d
  })
  const { url, urls } = await new Promise<{ url: string; urls: Record<string, string> }>(
    (resolve, reject) => {
      const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> })
      const timer = setTimeout(() => reject(new Error(`sim did not start: ${stderr}`)), 15_000)
      child.once('exit', (code) => reject(new Error(`sim exited ${code}: ${stderr}`)))
      lines.once('line', (line) => {
        clearTimeout(timer)
        child.removeAllListeners('exit')
        resolve(JSON.parse(line) as { url: string; urls: Record<string, string> })
      })
    },
  )
  const base = url.replace(/\/mcp$/, '')
  const root = `http://127.0.0.1:${new URL(url).port}`
  const siteBase = (site?: string) => (site ? `${root}/${site}` : base)
  return {
    url,
    urls,
    port: Number(new URL(url).port),
    child,
    stats: async (site) => (await (await fetch(`${siteBase(site)}/sim/stats`)).json()) as SimStats,
    resetStats: async (site) => {
      await fetch(`${siteBase(site)}/sim/stats/reset`, { method: 'POST' })
    },
    processStats: async () =>
      (await (await fetch(`${root}/sim/process-stats`)).json()) as {
        inFlight: number
        maxInFlight: number
      },
    control: async (body) => {
      const res = await fetch(`${base}/sim/control`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      if (!res.ok) throw new Error(`sim control failed: ${await res.text()}`)
    },
    kill: async (signal = 'SIGKILL') => {
      child.kill(signal)
      await waitExit(child, 5_000)
    },
  }
}

export type Gateway = {
  url: string
  port: number
  child: ChildProcess
  configFile: string
  dir: string
  /** Every JSON log line the gateway wrote so far. */
  logs(): Record<string, unknown>[]
  stdout(): string
  connect(token?: string): Promise<Client>
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** Start the real gateway process (`serve --config`) on a free loopback port. */
export async function startGateway(
  config: Record<string, unknown>,
  opts: { env?: Record<string, string>; args?: string[]; dir?: string } = {},
): Promise<Gateway> {
  const dir = opts.dir ?? (await tempDir())
  const configFile = join(dir, 'gateway.json')
  await writeFile(
    configFile,
    JSON.stringify({ listen: { host: '127.0.0.1', port: 0 }, ...config }, null, 2),
  )
  const child = spawn(
    process.execPath,
    [CLI, 'serve', '--config', configFile, ...(opts.args ?? [])],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...opts.env },
    },
  )
  let stdout = ''
  let stderr = ''
  const logs: Record<string, unknown>[] = []
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d
    let nl = stderr.indexOf('\n')
    while (nl >= 0) {
      const line = stderr.slice(0, nl)
      stderr = stderr.slice(nl + 1)
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>)
      } catch {
        logs.push({ raw: line })
      }
      nl = stderr.indexOf('\n')
    }
  })
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gateway did not start: ${JSON.stringify(logs.slice(-5))}`)),
      30_000,
    )
    child.once('exit', (code) =>
      reject(new Error(`gateway exited ${code}: ${JSON.stringify(logs.slice(-5))} ${stderr}`)),
    )
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d
      const m = /listening on (http:\/\/\S+)/.exec(stdout)
      if (m?.[1]) {
        clearTimeout(timer)
        child.removeAllListeners('exit')
        resolve(m[1])
      }
    })
  })
  const clients: Client[] = []
  return {
    url,
    port: Number(new URL(url).port),
    child,
    configFile,
    dir,
    logs: () => logs,
    stdout: () => stdout,
    connect: async (token) => {
      const client = new Client({ name: 'test-client', version: '1.0.0' })
      await client.connect(
        new StreamableHTTPClientTransport(
          new URL(url),
          token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {},
        ),
      )
      clients.push(client)
      return client
    },
    stop: async (signal = 'SIGTERM') => {
      await Promise.all(clients.map((c) => c.close().catch(() => {})))
      child.kill(signal)
      return waitExit(child, 20_000)
    },
  }
}

/** The gateway (or a sim) as a stdio MCP server, through the SDK's stdio client. */
export async function connectStdio(args: string[], env?: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, ...args],
      env: { ...process.env, ...env } as Record<string, string>,
      stderr: 'pipe',
    }),
  )
  return client
}

export type CliResult = { code: number | null; stdout: string; stderr: string }

export function runCli(args: string[], env?: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (d) => {
      stdout += d
    })
    child.stderr?.on('data', (d) => {
      stderr += d
    })
    child.once('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

export const TOKEN = 'test-token-0123456789abcdef'
export const OTHER_TOKEN = 'other-token-0123456789abcdef'
export const ADMIN_TOKEN = 'admin-token-0123456789abcdef'

export function httpUpstream(
  name: string,
  site: string,
  app: string,
  url: string,
  extra: Record<string, unknown> = {},
) {
  return { name, site, app, transport: 'streamable_http', url, ...extra }
}

export function stdioSimUpstream(name: string, site: string, app: string, extra: string[] = []) {
  return {
    name,
    site,
    app,
    transport: 'stdio',
    command: process.execPath,
    args: [CLI, 'sim', '--app', app, '--site', site, '--stdio', ...extra],
  }
}
