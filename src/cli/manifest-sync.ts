import { readFile, writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { manifestPath } from '../catalog/manifest.js'
import { buildManifestJson } from '../catalog/manifest-sync.js'
import { manifestShapeFromTool } from '../catalog/served.js'
import type { UpstreamConfig } from '../config/schema.js'
import { APP_INFO, isUnifiApp } from '../core/apps.js'
import { parseSingleJsonText } from '../core/json-text.js'
import { createLogger } from '../core/logger.js'
import { PRODUCT_NAME, packageVersion } from '../core/package-info.js'
import { callTool, listAllTools } from '../upstream/calls.js'
import { UpstreamConnection } from '../upstream/connection.js'
import { err, out, parse, UsageError } from './args.js'

export const MANIFEST_USAGE = `unifi-mcp-gateway manifest sync --url URL --app network|protect|access [--out FILE]

Rebuilds a tools manifest (module_map included) from a live upstream's tool index and
writes it to FILE, or prints it. An upstream bearer token may be given in UPSTREAM_BEARER_TOKEN.`

export async function runManifest(
  argv: string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const [sub, ...rest] = argv
  if (sub !== 'sync') throw new UsageError(`unknown manifest command "${sub ?? ''}"`)
  const { values } = parse(rest, {
    url: { type: 'string' },
    app: { type: 'string' },
    out: { type: 'string' },
  })
  if (!values.url) throw new UsageError('--url is required')
  const app = values.app
  if (!app || !isUnifiApp(app)) throw new UsageError('--app must be network, protect or access')
  let url: URL
  try {
    url = new URL(values.url)
  } catch {
    throw new UsageError(`--url is not a URL: ${values.url}`)
  }
  const config: UpstreamConfig = {
    name: 'manifest-sync',
    site: 'manifest-sync',
    app,
    enabled: true,
    transport: 'streamable_http',
    url: url.toString(),
    headers: {},
    ...(env.UPSTREAM_BEARER_TOKEN ? { bearer_token: env.UPSTREAM_BEARER_TOKEN } : {}),
  }
  const conn = new UpstreamConnection(config, {
    log: createLogger({ level: 'warn' }),
    listener: { connected() {}, disconnected() {}, toolsChanged() {}, promptsChanged() {} },
    clientInfo: { name: PRODUCT_NAME, version: packageVersion() },
  })
  const timeoutMs = 60_000
  try {
    const listed = await listAllTools(conn, timeoutMs)
    const p = APP_INFO[app].prefix
    const index = `${p}_tool_index`
    let tools: Record<string, unknown>[]
    const categories: Record<string, string[]> = {}
    if (listed.some((t) => t.name === index)) {
      const all = parseSingleJsonText(
        await callTool(conn, { name: index, arguments: { include_schemas: true } }, { timeoutMs }),
      ) as { tools?: Record<string, unknown>[]; categories?: string[] } | undefined
      if (!all?.tools) throw new Error(`${index} did not answer with a tool list`)
      tools = all.tools
      for (const category of all.categories ?? []) {
        const one = parseSingleJsonText(
          await callTool(conn, { name: index, arguments: { category } }, { timeoutMs }),
        ) as { tools?: { name: string }[] } | undefined
        categories[category] = (one?.tools ?? []).map((t) => t.name)
      }
      if ((all.categories ?? []).length === 0)
        err(
          `warning: ${index} returned no categories (the upstream runs meta_only or eager); module_map is taken from the bundled manifest`,
        )
    } else {
      tools = listed.map(manifestShapeFromTool)
      err(
        `warning: the upstream has no ${index}; tools come from tools/list and module_map from the bundled manifest`,
      )
    }
    const bundled = JSON.parse(await readFile(manifestPath(app), 'utf8')) as {
      module_map?: Record<string, string>
    }
    const { text, unmapped } = buildManifestJson({
      app,
      tools,
      categories,
      ...(bundled.module_map ? { fallbackModuleMap: bundled.module_map } : {}),
    })
    if (unmapped.length > 0)
      err(`warning: no category known for ${unmapped.length} tool(s): ${unmapped.join(', ')}`)
    if (values.out) {
      await writeFile(resolve(values.out), text)
      out(
        `wrote ${values.out}: ${tools.length} tools, ${Object.keys(categories).length} categories`,
      )
    } else out(text)
    return 0
  } finally {
    await conn.close()
  }
}
