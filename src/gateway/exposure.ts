import type { Logger } from '../core/logger.js'
import { exposedNameProblem, namespaced } from '../core/names.js'

export type Exclusion = { kind: 'tool' | 'prompt'; upstream: string; name: string; reason: string }

/**
 * Names the gateway could not expose (too long, bad characters, duplicate, or a tool the
 * gateway cannot relay). They are left out, never renamed, logged once, and listed for
 * operators (admin API).
 */
export class Exposure {
  readonly #excluded = new Map<string, Exclusion>()
  readonly #log: Logger

  constructor(log: Logger) {
    this.#log = log
  }

  /** The exposed name, or undefined (and reported) when it cannot be exposed. */
  expose(kind: 'tool' | 'prompt', upstream: string, local: string): string | undefined {
    const name = namespaced(upstream, local)
    const problem = exposedNameProblem(name)
    if (!problem) return name
    this.exclude({ kind, upstream, name, reason: problem })
    return undefined
  }

  exclude(exclusion: Exclusion): void {
    const key = `${exclusion.kind}:${exclusion.name}`
    if (this.#excluded.has(key)) return
    this.#excluded.set(key, exclusion)
    this.#log.warn(`${exclusion.kind} left out`, { ...exclusion })
  }

  /** Forget what was reported for an upstream (it was removed or re-learned). */
  forget(upstream: string, kind?: 'tool' | 'prompt'): void {
    for (const [key, e] of this.#excluded)
      if (e.upstream === upstream && (kind === undefined || e.kind === kind))
        this.#excluded.delete(key)
  }

  list(): Exclusion[] {
    return [...this.#excluded.values()]
  }
}
