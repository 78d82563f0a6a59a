import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { APP_INFO, type UnifiApp } from '../../core/apps.js'
import { isGatewayError, messageOf } from '../../core/errors.js'
import { jsonResult, parseSingleJsonText } from '../../core/json-text.js'
import type { Job } from '../../jobs/job-store.js'
import { executeErrorMessage } from '../../upstream/unifi-upstream.js'
import type { CallContext, GatewayCore, SessionState } from '../context.js'
import { readOnlyRefusal } from '../policy.js'
import { parseMetaArgs } from './args.js'
import { resolveTarget, runOnTarget, type Target } from './execute.js'

type Planned = { index: number; tool: string; target: Target; args: Record<string, unknown> }
type StartError = { index: number; tool?: string; error: string }

function opArguments(raw: unknown): Record<string, unknown> | string {
  if (raw === undefined || raw === null) return {}
  let value = raw
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value)
    } catch {
      return "'arguments' must be an object (or a JSON string of one)"
    }
  }
  if (value && typeof value === 'object' && !Array.isArray(value))
    return value as Record<string, unknown>
  return "'arguments' must be an object (or a JSON string of one)"
}

/**
 * `<p>_batch {operations}`: start every operation as a job and return at once, in the
 * upstream's shape plus `site` on each job. Unlike the upstream, jobs run under the
 * gateway's concurrency limits (waiting as `queued`), belong to the caller's token, and can
 * be cancelled. A batch over `maxBatchOperations` or over the free job capacity is refused
 * whole: nothing is half-started.
 */
export async function batch(
  core: GatewayCore,
  session: SessionState,
  app: UnifiApp,
  args: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const p = APP_INFO[app].prefix
  const parsed = parseMetaArgs(app, 'batch', args)
  if ('error' in parsed) return parsed.error
  const operations = parsed.value.operations
  const limits = core.config().limits
  if (operations.length === 0) return jsonResult({ error: 'No operations specified', jobs: [] })
  if (operations.length > limits.maxBatchOperations)
    return jsonResult({
      error: `Too many operations: ${operations.length} (limits.maxBatchOperations is ${limits.maxBatchOperations}); nothing was started. Split the batch.`,
      jobs: [],
    })

  const planned: Planned[] = []
  const errors: StartError[] = []
  for (const [index, op] of operations.entries()) {
    const tool = op.tool
    if (typeof tool !== 'string' || tool === '') {
      errors.push({ index, error: "Missing 'tool' field" })
      continue
    }
    const toolArgs = opArguments(op.arguments)
    if (typeof toolArgs === 'string') {
      errors.push({ index, tool, error: toolArgs })
      continue
    }
    const site = op.site === undefined || op.site === null ? undefined : String(op.site)
    const sites = site === '*' ? core.registry.sitesOf(app, session.caller) : [site]
    const targets: Target[] = []
    let failure: string | undefined
    for (const s of sites) {
      const target = await resolveTarget(core, session, app, tool, s)
      if ('error' in target) {
        // Fan-out skips sites whose upstream does not serve the tool; a named site must.
        if (site === '*' && target.error.startsWith('Unknown tool')) continue
        failure = target.error
        break
      }
      if (site === '*' && !target.entry.readOnly) {
        failure = `${tool} changes state, so it needs one named site; site "*" only fans out read-only tools`
        break
      }
      const refusal = readOnlyRefusal(core.config(), target.rt.config, target.entry)
      if (refusal) {
        failure = refusal
        break
      }
      targets.push(target)
    }
    if (!failure && targets.length === 0) failure = `Unknown tool: ${tool} (no site serves it)`
    if (failure) {
      errors.push({ index, tool, error: failure })
      continue
    }
    for (const target of targets) planned.push({ index, tool, target, args: toolArgs })
  }

  if (planned.length > limits.maxBatchOperations)
    return jsonResult({
      error: `This batch fans out to ${planned.length} jobs (limits.maxBatchOperations is ${limits.maxBatchOperations}); nothing was started. Name fewer sites or split the batch.`,
      jobs: [],
    })
  if (planned.length > core.jobs.capacity())
    return jsonResult({
      error: `The gateway can take ${core.jobs.capacity()} more jobs right now (limits.maxQueuedJobs is ${limits.maxQueuedJobs}) and this batch needs ${planned.length}; nothing was started. Wait for running jobs to finish (${p}_batch_status with wait_ms) or send a smaller batch.`,
      jobs: [],
    })

  const jobs = planned.map((plan) => {
    const job = core.jobs.create(session.caller.name, plan.tool, plan.target.rt.config.site)
    runJob(core, session, job, plan).catch((err) => {
      core.log.error('job crashed; marked error', { job: job.id, err: messageOf(err) })
      core.jobs.fail(job, `internal error: ${messageOf(err)}`)
    })
    return { index: plan.index, tool: plan.tool, jobId: job.id, site: plan.target.rt.config.site }
  })
  core.observer.jobsChanged?.()
  return jsonResult({
    jobs,
    errors: errors.length > 0 ? errors : null,
    message: `Started ${jobs.length} operation(s). Use ${p}_batch_status to check progress.`,
  })
}

async function runJob(
  core: GatewayCore,
  session: SessionState,
  job: Job,
  plan: Planned,
): Promise<void> {
  const signal = job.controller.signal
  try {
    const result = await runOnTarget(
      core,
      session,
      plan.target,
      plan.tool,
      plan.args,
      'batch',
      signal,
      (p) =>
        core.jobs.setProgress(job, {
          progress: p.progress,
          ...(p.total !== undefined ? { total: p.total } : {}),
          ...(p.message !== undefined ? { message: p.message } : {}),
        }),
      () => core.jobs.markRunning(job),
    )
    // What the upstream's own batch records: the raw message for a raised error, the
    // normalized result otherwise (a handled {"success": false} is still "done").
    const failure = executeErrorMessage(result)
    if (failure !== undefined) core.jobs.fail(job, failure)
    else core.jobs.succeed(job, parseSingleJsonText(result) ?? result.content)
  } catch (err) {
    if (!isGatewayError(err, 'cancelled')) core.jobs.fail(job, messageOf(err))
  } finally {
    core.observer.jobsChanged?.()
  }
}

function jobIdsFrom(value: {
  jobId?: string | undefined
  jobIds?: string[] | undefined
}): { many: string[] } | { one: string } | undefined {
  if (value.jobIds && value.jobIds.length > 0) return { many: value.jobIds }
  if (value.jobId) return { one: value.jobId }
  return undefined
}

/** `<p>_batch_status {jobId | jobIds, wait_ms?}` in the upstream's shape. */
export async function batchStatus(
  core: GatewayCore,
  session: SessionState,
  app: UnifiApp,
  args: Record<string, unknown> | undefined,
  call: CallContext,
): Promise<CallToolResult> {
  const parsed = parseMetaArgs(app, 'batch_status', args)
  if ('error' in parsed) return parsed.error
  const ids = jobIdsFrom(parsed.value)
  if (!ids) return jsonResult({ error: 'Provide jobId or jobIds parameter' })
  const list = 'many' in ids ? ids.many : [ids.one]
  const waitMs = Math.min(Math.max(0, parsed.value.wait_ms ?? 0), core.config().limits.maxWaitMs)
  if (waitMs > 0) {
    const send = call.sendProgress
    await core.jobs.waitFor(session.caller, list, waitMs, call.signal, (finished, total) => {
      send?.({
        progress: finished,
        total,
        message: `${finished} of ${total} job(s) finished`,
      }).catch(() => {})
    })
  }
  if ('one' in ids) return jsonResult(core.jobs.statusOf(session.caller, ids.one))
  return jsonResult({
    jobs: list.map((jobId) => ({ jobId, ...core.jobs.statusOf(session.caller, jobId) })),
  })
}

/** `<p>_batch_cancel {jobId | jobIds}`: cancel queued and running jobs of this caller. */
export async function batchCancel(
  core: GatewayCore,
  session: SessionState,
  app: UnifiApp,
  args: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const p = APP_INFO[app].prefix
  const parsed = parseMetaArgs(app, 'batch_cancel', args)
  if ('error' in parsed) return parsed.error
  const ids = jobIdsFrom(parsed.value)
  if (!ids) return jsonResult({ error: 'Provide jobId or jobIds parameter' })
  const cancelOne = (jobId: string) => {
    const before = core.jobs.statusOf(session.caller, jobId).status
    const status = core.jobs.cancel(
      session.caller,
      jobId,
      `cancelled by the client with ${p}_batch_cancel`,
    )
    return { jobId, status, cancelled: status === 'cancelled' && before !== 'cancelled' }
  }
  const result = 'one' in ids ? cancelOne(ids.one) : { jobs: ids.many.map(cancelOne) }
  core.observer.jobsChanged?.()
  return jsonResult(result)
}
