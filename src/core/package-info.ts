import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The folder holding package.json (works from src/ under a loader and from dist/). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'manifests'))) return dir
    const up = dirname(dir)
    if (up === dir) throw new Error('unifi-mcp-gateway: cannot find the package root (manifests/)')
    dir = up
  }
}

let cachedVersion: string | undefined
export function packageVersion(): string {
  cachedVersion ??= (
    JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }
  ).version
  return cachedVersion
}

export const PRODUCT_NAME = 'unifi-mcp-gateway'
