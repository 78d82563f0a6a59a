import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { type Manifest, type ToolEntry, toolEntryFrom } from '../../catalog/manifest.js'
import type { RegistrationMode } from '../../config/schema.js'
import { APP_INFO, type MetaSuffix, UNIFI_APPS, type UnifiApp } from '../../core/apps.js'
import { packageRoot } from '../../core/package-info.js'

/**
 * The gateway's meta-tools. Their tools/list definitions start from the upstream servers'
 * own, captured from the running upstream (manifests/meta-tools.tools-list.json), so that
 * clients written for those servers see what they expect; the gateway's extra arguments
 * (`name`, `site`, `wait_ms`) and `*_batch_cancel` are added with descriptions a model can
 * act on. Site names never appear here, so tools/list does not grow with the site count.
 */
export type CapturedMetaTools = Record<UnifiApp, { lazy: Tool[]; meta_only: Tool[] }>

export async function loadCapturedMetaTools(
  file = join(packageRoot(), 'manifests', 'meta-tools.tools-list.json'),
): Promise<CapturedMetaTools> {
  const json = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>
  const out = {} as CapturedMetaTools
  for (const app of UNIFI_APPS) out[app] = json[app] as CapturedMetaTools[UnifiApp]
  return out
}

const nullableString = (title: string, description: string) => ({
  anyOf: [{ type: 'string' }, { type: 'null' }],
  default: null,
  title,
  description,
})

type Extra = {
  properties: Record<string, Record<string, unknown>>
  description: (app: UnifiApp) => string
}

const SITE_HINT =
  'Site to run on. Required when this app runs on more than one site: the error lists them, and so does "sites" in each tool_index entry.'

function extras(app: UnifiApp): Partial<Record<MetaSuffix, Extra>> {
  const p = APP_INFO[app].prefix
  return {
    tool_index: {
      properties: {
        name: nullableString(
          'Name',
          'Exact tool name: returns only that tool. Combine with include_schemas to get its parameters.',
        ),
        site: nullableString(
          'Site',
          'Only tools served at this site. When the gateway fronts several sites, every entry lists its "sites".',
        ),
      },
      description: () =>
        ` Use 'name' for one tool's entry. When several sites are behind this gateway, each entry lists the 'sites' that serve it and 'site' narrows the index to one site.`,
    },
    execute: {
      properties: { site: nullableString('Site', SITE_HINT) },
      description: () =>
        ` The gateway runs the tool on the upstream of the given 'site' (optional when there is only one site).`,
    },
    batch: {
      properties: {},
      description: () =>
        ` Each operation is {tool, arguments?, site?}; site "*" runs a read-only tool on every site, one job per site. Jobs wait as 'queued' while the gateway's concurrency limits are reached.`,
    },
    batch_status: {
      properties: {
        wait_ms: {
          anyOf: [{ type: 'integer' }, { type: 'null' }],
          default: null,
          title: 'Wait Ms',
          description:
            'Wait up to this many milliseconds (capped by the gateway) until every listed job has finished, instead of polling.',
        },
      },
      description: () =>
        ` Statuses also include 'queued' (waiting for a slot), 'cancelled' (see ${p}_batch_cancel) and 'unknown' (never existed, expired, or started by another client). Pass wait_ms to get finished results in one call.`,
    },
    load_tools: {
      properties: {
        site: nullableString(
          'Site',
          `Site whose tools to load; "*" loads them for every site. Required when this app runs on more than one site.`,
        ),
      },
      description: () =>
        ` Loaded tools are named <upstream>__<tool>, one per site, and only this session sees them.`,
    },
  }
}

function batchCancelTool(app: UnifiApp): Tool {
  const { prefix: p, label } = APP_INFO[app]
  return {
    name: `${p}_batch_cancel`,
    title: `${label} Batch Cancel`,
    description: `Cancel ${label} jobs started with ${p}_batch that are still queued or running; a running job's upstream request is cancelled too. Returns each job's status afterwards.`,
    inputSchema: {
      type: 'object',
      properties: {
        jobId: { default: null, title: 'Jobid', type: 'string' },
        jobIds: { default: null, items: { type: 'string' }, title: 'Jobids', type: 'array' },
      },
      title: 'batch_cancel_handlerArguments',
    },
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  }
}

export function metaSuffixesFor(mode: RegistrationMode): MetaSuffix[] {
  const base: MetaSuffix[] = ['tool_index', 'execute', 'batch', 'batch_status', 'batch_cancel']
  return mode === 'lazy' ? [...base, 'load_tools'] : base
}

/** tools/list definitions of one app's meta-tools in a registration mode. */
export function metaToolDefinitions(
  captured: CapturedMetaTools,
  app: UnifiApp,
  mode: RegistrationMode,
): Tool[] {
  const byName = new Map(captured[app].lazy.map((t) => [t.name, t]))
  const ex = extras(app)
  return metaSuffixesFor(mode).map((suffix) => {
    if (suffix === 'batch_cancel') return batchCancelTool(app)
    const base = byName.get(`${APP_INFO[app].prefix}_${suffix}`)
    if (!base) throw new Error(`captured meta-tool definitions lack ${suffix} for ${app}`)
    const extra = ex[suffix]
    if (!extra) return base
    const props = (base.inputSchema.properties ?? {}) as Record<string, object>
    return {
      ...base,
      description: `${base.description ?? ''}${extra.description(app)}`,
      inputSchema: { ...base.inputSchema, properties: { ...props, ...extra.properties } },
    }
  })
}

/**
 * The meta-tools' entries for the index (manifest view, reference §3.0 (b)): the stored
 * manifest entry with the gateway's extra arguments added.
 */
export function metaIndexEntries(
  manifest: Manifest,
  app: UnifiApp,
  mode: RegistrationMode,
): ToolEntry[] {
  const p = APP_INFO[app].prefix
  const ex = extras(app)
  return metaSuffixesFor(mode).map((suffix) => {
    const name = `${p}_${suffix}`
    if (suffix === 'batch_cancel') {
      const tool = batchCancelTool(app)
      return toolEntryFrom(
        {
          annotations: tool.annotations,
          description: tool.description,
          name,
          schema: {
            input: {
              type: 'object',
              properties: {
                jobId: { type: 'string', description: 'Single job ID to cancel' },
                jobIds: {
                  type: 'array',
                  items: { type: 'string' },
                  description: 'Job IDs to cancel',
                },
              },
            },
          },
          title: tool.title,
        },
        undefined,
      )
    }
    const stored = manifest.byName.get(name)
    if (!stored) throw new Error(`manifest for ${app} lacks the meta-tool ${name}`)
    const extra = ex[suffix]
    if (!extra || Object.keys(extra.properties).length === 0) return stored
    const schema = (stored.raw.schema ?? {}) as {
      input?: Record<string, unknown>
      output?: unknown
    }
    const input = schema.input ?? { type: 'object', properties: {} }
    const props = { ...((input.properties ?? {}) as Record<string, unknown>) }
    for (const [key, def] of Object.entries(extra.properties)) {
      props[key] = {
        type: key === 'wait_ms' ? 'integer' : 'string',
        description: String(def.description),
      }
    }
    return toolEntryFrom(
      { ...stored.raw, schema: { ...schema, input: { ...input, properties: props } } },
      undefined,
    )
  })
}
