import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { ConfigInput } from '../config/schema.js'
import type { UnifiApp } from '../core/apps.js'

/** This CLI's entry point, for spawning simulators. */
export const CLI_PATH = fileURLToPath(new URL('./main.js', import.meta.url))

export type SpawnedSim = { url: string; child: ChildProcess }

/**
 * Start `unifi-mcp-gateway sim` as a child process over Streamable HTTP on a free loopback
 * port. The child exits when this process goes away (its stdin closes), so a crashed
 * gateway leaves no simulator behind.
 */
export function spawnHttpSim(
  app: UnifiApp,
  site: string,
  extra: string[] = [],
): Promise<SpawnedSim> {
  const child = spawn(
    process.execPath,
    [
      CLI_PATH,
      'sim',
      '--app',
      app,
      '--site',
      site,
      '--port',
      '0',
      '--exit-on-stdin-close',
      ...extra,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> })
    const fail = (why: string) => {
      child.kill('SIGKILL')
      reject(new Error(`simulator ${app}/${site} did not start: ${why}`))
    }
    const timer = setTimeout(() => fail('no URL within 15 s'), 15_000)
    child.once('exit', (code) => fail(`exited with code ${code}`))
    lines.once('line', (line) => {
      clearTimeout(timer)
      child.removeAllListeners('exit')
      try {
        resolve({ url: (JSON.parse(line) as { url: string }).url, child })
      } catch {
        fail(`unexpected first line: ${line}`)
      }
    })
  })
}

export type Demo = { config: ConfigInput; token: string; close(): Promise<void> }

/**
 * The default when `serve` gets no config (interface.md §3): simulated upstreams for two
 * sites as separate processes over real transports. hq-network, hq-protect and hq-access
 * speak Streamable HTTP; branch-network speaks stdio and is spawned by the gateway itself.
 */
export async function startDemo(
  env: Readonly<Record<string, string | undefined>>,
  port: number,
): Promise<Demo> {
  const token = env.GATEWAY_TOKEN ?? randomBytes(24).toString('hex')
  const sims = await Promise.all([
    spawnHttpSim('network', 'hq'),
    spawnHttpSim('protect', 'hq'),
    spawnHttpSim('access', 'hq'),
  ])
  const [network, protect, access] = sims as [SpawnedSim, SpawnedSim, SpawnedSim]
  const config: ConfigInput = {
    listen: { host: '127.0.0.1', port },
    auth: { tokens: [{ name: 'demo', token, sites: ['*'] }] },
    upstreams: [
      {
        name: 'hq-network',
        site: 'hq',
        app: 'network',
        transport: 'streamable_http',
        url: network.url,
      },
      {
        name: 'hq-protect',
        site: 'hq',
        app: 'protect',
        transport: 'streamable_http',
        url: protect.url,
      },
      {
        name: 'hq-access',
        site: 'hq',
        app: 'access',
        transport: 'streamable_http',
        url: access.url,
      },
      {
        name: 'branch-network',
        site: 'branch',
        app: 'network',
        transport: 'stdio',
        command: process.execPath,
        args: [CLI_PATH, 'sim', '--app', 'network', '--site', 'branch', '--stdio'],
      },
    ],
  }
  return {
    config,
    token,
    close: async () => {
      await Promise.all(
        sims.map(
          (s) =>
            new Promise<void>((resolve) => {
              if (s.child.exitCode !== null) return resolve()
              s.child.once('exit', () => resolve())
              s.child.kill('SIGTERM')
              setTimeout(() => s.child.kill('SIGKILL'), 3_000).unref()
            }),
        ),
      )
    },
  }
}
