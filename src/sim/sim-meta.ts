import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import { queryToolIndex } from '../catalog/tool-index.js'
import { errorTextResult, jsonResult } from '../core/json-text.js'
import { parseLenient } from '../core/lenient-args.js'
import { UPSTREAM_META_ARGS } from '../gateway/meta/args.js'
import type { CapturedMetaTools } from '../gateway/meta/definitions.js'
import { type SimState, SimToolError } from './sim-state.js'

/**
 * The upstream servers' meta-tools, with the upstream's semantics (reference §3): the index
 * is manifest-backed only in lazy mode (in meta_only and eager it is built from the runtime
 * registry with no categories, the upstream's bug, kept here so the gateway is tested
 * against it); batch runs everything at once, unbounded; jobs are shared by all sessions.
 */
export type Progress = (p: { progress: number; total: number; message: string }) => Promise<void>

const SHAPES = UPSTREAM_META_ARGS

export function simMetaTools(state: SimState, captured: CapturedMetaTools): Tool[] {
  const defs = captured[state.opts.app]
  return state.opts.mode === 'lazy' ? defs.lazy : defs.meta_only
}

export function isSimMetaTool(state: SimState, name: string, captured: CapturedMetaTools): boolean {
  return simMetaTools(state, captured).some((t) => t.name === name)
}

function indexSource(state: SimState) {
  const manifest = state.opts.manifest
  const metaNames = new Set(
    state.opts.mode === 'lazy'
      ? [
          `${state.prefix}_tool_index`,
          `${state.prefix}_execute`,
          `${state.prefix}_batch`,
          `${state.prefix}_batch_status`,
          `${state.prefix}_load_tools`,
        ]
      : [
          `${state.prefix}_tool_index`,
          `${state.prefix}_execute`,
          `${state.prefix}_batch`,
          `${state.prefix}_batch_status`,
        ],
  )
  const metas = manifest.tools.filter((t) => metaNames.has(t.name))
  if (state.opts.mode === 'lazy') {
    const tools = [...metas, ...state.domainTools()].sort((a, b) => (a.name < b.name ? -1 : 1))
    return tools.map((entry) => ({ entry, sites: [] }))
  }
  // Registry-backed: registered tools only, runtime-registry entry shape, no module map.
  const registered = [...metas, ...state.registeredDomainTools()].sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )
  return registered.map((t) => {
    const schema = (t.raw.schema ?? {}) as Record<string, unknown>
    const raw = {
      name: t.name,
      ...(t.title ? { title: t.title } : {}),
      description: t.description,
      schema,
    }
    return { entry: { ...t, category: '', raw }, sites: [] }
  })
}

async function runInner(
  state: SimState,
  captured: CapturedMetaTools,
  tool: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  progress?: Progress,
): Promise<Record<string, unknown>> {
  if (isSimMetaTool(state, tool, captured)) {
    const result = await callSimMeta(state, captured, tool, args, signal, progress)
    if (result.isError)
      throw new SimToolError(
        result.content?.[0]?.type === 'text' ? result.content[0].text : 'error',
      )
    const block = result.content?.[0]
    return block?.type === 'text' ? (JSON.parse(block.text) as Record<string, unknown>) : {}
  }
  const entry = state.domainTool(tool)
  if (!entry) throw new SimToolError(`Unknown tool: ${tool}`)
  // The lazy interceptor imports the tool's module on first use: its whole category loads.
  state.loadedCategories.add(entry.category)
  return state.runDomainTool(entry, args, signal, progress)
}

export async function callSimMeta(
  state: SimState,
  captured: CapturedMetaTools,
  name: string,
  args: Record<string, unknown> | undefined,
  signal: AbortSignal,
  progress?: Progress,
): Promise<CallToolResult> {
  const suffix = name.slice(state.prefix.length + 1) as keyof typeof SHAPES
  const spec = SHAPES[suffix]
  const parsed = parseLenient(name, spec.model, spec.shape, args)
  if (!parsed.ok) return errorTextResult(parsed.message)
  const v = parsed.value as Record<string, unknown>
  switch (suffix) {
    case 'tool_index': {
      const result = queryToolIndex(
        indexSource(state),
        {
          category: v.category as string | undefined,
          search: v.search as string | undefined,
          includeSchemas: v.include_schemas === true,
        },
        { withSites: false },
      )
      return jsonResult(result)
    }
    case 'execute': {
      try {
        const result = await runInner(
          state,
          captured,
          String(v.tool),
          (v.arguments as Record<string, unknown>) ?? {},
          signal,
          progress,
        )
        return jsonResult(result)
      } catch (err) {
        if (signal.aborted) throw err
        return jsonResult({
          error: `Failed to execute tool: ${err instanceof Error ? err.message : String(err)}`,
        })
      }
    }
    case 'batch': {
      const ops = v.operations as Record<string, unknown>[]
      if (ops.length === 0) return jsonResult({ error: 'No operations specified', jobs: [] })
      const jobs: { index: number; tool: string; jobId: string }[] = []
      const errors: { index: number; error: string }[] = []
      for (const [index, op] of ops.entries()) {
        if (typeof op.tool !== 'string' || op.tool === '') {
          errors.push({ index, error: "Missing 'tool' field" })
          continue
        }
        const tool = op.tool
        const job = state.jobs.create('sim', tool)
        state.jobs.markRunning(job)
        const opArgs = (op.arguments ?? {}) as Record<string, unknown>
        runInner(state, captured, tool, opArgs, job.controller.signal).then(
          (result) => state.jobs.succeed(job, result),
          (err) => state.jobs.fail(job, err instanceof Error ? err.message : String(err)),
        )
        jobs.push({ index, tool, jobId: job.id })
      }
      return jsonResult({
        jobs,
        errors: errors.length > 0 ? errors : null,
        message: `Started ${jobs.length} operation(s). Use ${state.prefix}_batch_status to check progress.`,
      })
    }
    case 'batch_status': {
      const owner = { name: 'sim', sites: 'all' as const }
      const status = (id: string) => {
        const s = state.jobs.statusOf(owner, id) as Record<string, unknown>
        const { tool: _t, site: _s, progress: _p, ...upstreamShape } = s
        return upstreamShape
      }
      const ids = v.jobIds as string[] | undefined
      if (ids && ids.length > 0)
        return jsonResult({ jobs: ids.map((jobId) => ({ jobId, ...status(jobId) })) })
      if (v.jobId) return jsonResult(status(String(v.jobId)))
      return jsonResult({ error: 'Provide jobId or jobIds parameter' })
    }
    case 'load_tools': {
      const names = v.tools as string[]
      if (names.length === 0)
        return jsonResult({ error: 'No tools specified', loaded: [], errors: [] })
      const loaded: string[] = []
      const errors: { tool: string; error: string }[] = []
      for (const n of names) {
        const entry = state.domainTool(n)
        if (!entry) errors.push({ tool: n, error: 'Unknown tool' })
        else {
          state.loadedCategories.add(entry.category)
          loaded.push(n)
        }
      }
      return jsonResult({
        loaded,
        errors: errors.length > 0 ? errors : null,
        message: `Loaded ${loaded.length} tool(s). Client should refresh tool list.`,
      })
    }
  }
}
