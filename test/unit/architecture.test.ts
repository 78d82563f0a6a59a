import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

const SRC = fileURLToPath(new URL('../../../src', import.meta.url))

/**
 * Folders are the architecture (house style, habit 1): cli → server → gateway →
 * {upstream, catalog, jobs, prompts, config} → core. The simulator is a leaf beside the
 * server. Nothing imports cli; services never import the HTTP edge.
 */
const ALLOWED: Record<string, string[]> = {
  core: [],
  config: ['core'],
  catalog: ['core'],
  jobs: ['core'],
  prompts: ['core'],
  transport: ['core'],
  upstream: ['core', 'config'],
  gateway: ['core', 'config', 'catalog', 'jobs', 'prompts', 'upstream'],
  server: ['core', 'config', 'gateway', 'transport'],
  sim: ['core', 'catalog', 'jobs', 'prompts', 'transport', 'gateway'],
  cli: [
    'core',
    'config',
    'catalog',
    'jobs',
    'prompts',
    'transport',
    'upstream',
    'gateway',
    'server',
    'sim',
  ],
}
const NO_HTTP = new Set([
  'core',
  'config',
  'catalog',
  'jobs',
  'prompts',
  'upstream',
  'gateway',
  'transport',
])

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true })
  return entries.filter((f) => f.endsWith('.ts'))
}

test('architecture:layers: imports only point inward', async () => {
  for (const file of await sources(SRC)) {
    const layer = file.split('/')[0] as string
    const allowed = ALLOWED[layer]
    assert.ok(allowed, `src/${file}: unknown folder ${layer}`)
    const text = await readFile(join(SRC, file), 'utf8')
    for (const m of text.matchAll(/from '\.\.\/([a-z-]+)\//g)) {
      const target = m[1] as string
      assert.ok(
        target === layer || allowed.includes(target),
        `src/${file} imports ../${target}/ (allowed: ${allowed.join(', ')})`,
      )
    }
    if (NO_HTTP.has(layer))
      assert.doesNotMatch(
        text,
        /from '(hono|@hono\/)/,
        `src/${file} must stay free of the HTTP edge`,
      )
  }
})

test('architecture:env: only src/cli reads process.env', async () => {
  for (const file of await sources(SRC)) {
    if (file.startsWith('cli/')) continue
    const text = await readFile(join(SRC, file), 'utf8')
    assert.doesNotMatch(text, /process\.env/, `src/${file} reads process.env`)
  }
})

test('architecture:file-size: source files stay small (one idea each)', async () => {
  for (const file of await sources(SRC)) {
    const lines = (await readFile(join(SRC, file), 'utf8')).split('\n').length
    assert.ok(lines <= 450, `src/${file} has ${lines} lines`)
  }
})
