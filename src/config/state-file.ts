import { randomBytes } from 'node:crypto'
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { z } from 'zod'
import { ConfigError, issuesFromZod } from './issues.js'
import { UpstreamEntrySchema, type UpstreamInput } from './schema.js'

/**
 * Upstreams registered at run time (admin API or CLI) and enable/disable overrides, kept in
 * one JSON file so they survive a restart. The config file stays declarative; this file is
 * the gateway's own. Every change is written to a temporary file, flushed to disk and renamed
 * over the old one (then the directory is flushed), before the change is acknowledged: a crash
 * at any point leaves either the old or the new file, never a torn one.
 */
export const StateSchema = z.strictObject({
  version: z.literal(1),
  servers: z.array(z.record(z.string(), z.unknown())).default([]),
  overrides: z.record(z.string(), z.strictObject({ enabled: z.boolean() })).default({}),
})
export type GatewayState = {
  version: 1
  servers: UpstreamInput[]
  overrides: Record<string, { enabled: boolean }>
}

const EMPTY: GatewayState = { version: 1, servers: [], overrides: {} }

export class StateStore {
  readonly file: string
  #state: GatewayState = EMPTY
  #queue: Promise<void> = Promise.resolve()

  constructor(file: string) {
    this.file = file
  }

  get state(): GatewayState {
    return this.#state
  }

  /** Read the file (absent = empty). A corrupt file is an error and is left untouched. */
  async load(): Promise<GatewayState> {
    let text: string
    try {
      text = await readFile(this.file, 'utf8')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.#state = EMPTY
        return EMPTY
      }
      throw err
    }
    const problem = (message: string) =>
      new ConfigError(this.file, [
        {
          path: '',
          message: `${message}. The state file was not changed: fix it, or move it away to start without run-time registrations`,
        },
      ])
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (err) {
      throw problem(`not valid JSON (${err instanceof Error ? err.message : String(err)})`)
    }
    const parsed = StateSchema.safeParse(json)
    if (!parsed.success) throw new ConfigError(this.file, issuesFromZod(parsed.error))
    const issues = parsed.data.servers.flatMap((s, i) => {
      const one = UpstreamEntrySchema.safeParse(s)
      return one.success ? [] : issuesFromZod(one.error, ['servers', i])
    })
    if (issues.length > 0) throw new ConfigError(this.file, issues)
    await this.#removeLeftovers()
    this.#state = parsed.data as GatewayState
    return this.#state
  }

  /** Apply a change and persist it; resolves once it is durable. Changes run one at a time. */
  update(change: (current: GatewayState) => GatewayState): Promise<GatewayState> {
    const run = this.#queue.then(async () => {
      const next = change(this.#state)
      await this.#write(next)
      this.#state = next
      return next
    })
    this.#queue = run.then(
      () => undefined,
      () => undefined,
    )
    return run
  }

  async #write(state: GatewayState): Promise<void> {
    const dir = dirname(this.file)
    await mkdir(dir, { recursive: true })
    const tmp = join(
      dir,
      `.${basename(this.file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
    )
    const fh = await open(tmp, 'w', 0o600)
    try {
      await fh.writeFile(`${JSON.stringify(state, null, 2)}\n`)
      await fh.sync()
    } finally {
      await fh.close()
    }
    await rename(tmp, this.file)
    const dh = await open(dir, 'r')
    try {
      await dh.sync()
    } finally {
      await dh.close()
    }
  }

  /** Temporary files of a write that a crash interrupted. */
  async #removeLeftovers(): Promise<void> {
    const dir = dirname(this.file)
    const prefix = `.${basename(this.file)}.`
    for (const name of await readdir(dir).catch(() => [] as string[]))
      if (name.startsWith(prefix) && name.endsWith('.tmp'))
        await rm(join(dir, name), { force: true })
  }
}
