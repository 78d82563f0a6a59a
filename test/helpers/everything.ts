import { type ChildProcess, spawn } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { freePort, tempDir } from './processes.js'

/** `@modelcontextprotocol/server-everything` from npm: a real third-party MCP server. */
export const EVERYTHING = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
)

// server-everything's HTTP mode calls app.listen(PORT) with no host, i.e. every interface.
// This preload pins listeners without a host to loopback: only loopback traffic, ever.
const LOOPBACK_PRELOAD = `const net = require('node:net')
const listen = net.Server.prototype.listen
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' && (args.length === 1 || typeof args[1] === 'function')) args.splice(1, 0, '127.0.0.1')
  return listen.apply(this, args)
}
`

// A transparent stdio proxy that records every JSON-RPC method a client sends to the
// server behind it: "observed at the upstream".
const TAP = `import { spawn } from 'node:child_process'
import { appendFileSync } from 'node:fs'
const [log, ...cmd] = process.argv.slice(2)
const child = spawn(cmd[0], cmd.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] })
let buf = ''
process.stdin.on('data', (d) => {
  buf += d
  let nl
  while ((nl = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, nl)
    buf = buf.slice(nl + 1)
    try { const m = JSON.parse(line); if (m.method) appendFileSync(log, m.method + (m.params?.name ? ' ' + m.params.name : '') + '\\n') } catch {}
  }
  child.stdin.write(d)
})
process.stdin.on('end', () => child.stdin.end())
child.stdout.pipe(process.stdout)
child.on('exit', (code) => process.exit(code ?? 0))
`

export type EverythingHttp = { url: string; child: ChildProcess; kill(): Promise<void> }

export async function startEverythingHttp(): Promise<EverythingHttp> {
  const dir = await tempDir('umg-everything-')
  const preload = join(dir, 'loopback.cjs')
  await writeFile(preload, LOOPBACK_PRELOAD)
  const port = await freePort()
  const child = spawn(process.execPath, ['--require', preload, EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const url = `http://127.0.0.1:${port}/mcp`
  const deadline = Date.now() + 20_000
  for (;;) {
    try {
      const res = await fetch(url, { method: 'GET' })
      await res.body?.cancel()
      break
    } catch {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error('server-everything did not start')
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  return {
    url,
    child,
    kill: async () => {
      if (child.exitCode !== null) return
      child.kill('SIGKILL')
      await new Promise((r) => child.once('exit', r))
    },
  }
}

/** A stdio upstream config for server-everything behind the tap, and a reader for the tap. */
export async function tappedEverything(
  name: string,
): Promise<{ upstream: Record<string, unknown>; methods(): Promise<string[]> }> {
  const dir = await tempDir('umg-tap-')
  const tap = join(dir, 'tap.mjs')
  const log = join(dir, 'methods.log')
  await writeFile(tap, TAP)
  await writeFile(log, '')
  return {
    upstream: {
      name,
      app: 'generic',
      transport: 'stdio',
      command: process.execPath,
      args: [tap, log, process.execPath, EVERYTHING, 'stdio'],
    },
    methods: async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean),
  }
}
