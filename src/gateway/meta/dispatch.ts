import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { RegistrationMode } from '../../config/schema.js'
import { type MetaSuffix, parseMetaToolName, type UnifiApp } from '../../core/apps.js'
import type { CallContext, GatewayCore, SessionState } from '../context.js'
import { parseMetaArgs } from './args.js'
import { batch, batchCancel, batchStatus } from './batch.js'
import { metaSuffixesFor } from './definitions.js'
import { executeTool } from './execute.js'
import { loadTools } from './load-tools.js'
import { toolIndex } from './tool-index.js'

/** Is `name` one of the gateway's meta-tools in this mode? */
export function metaToolOf(
  name: string,
  mode: RegistrationMode,
): { app: UnifiApp; suffix: MetaSuffix } | undefined {
  const meta = parseMetaToolName(name)
  return meta && metaSuffixesFor(mode).includes(meta.suffix) ? meta : undefined
}

export async function callMetaTool(
  core: GatewayCore,
  session: SessionState,
  meta: { app: UnifiApp; suffix: MetaSuffix },
  args: Record<string, unknown> | undefined,
  call: CallContext,
): Promise<CallToolResult> {
  const { app } = meta
  switch (meta.suffix) {
    case 'tool_index':
      return toolIndex(core, session, app, args)
    case 'execute': {
      // `<p>_execute` of one of the gateway's own meta-tools runs it here: everything the
      // index lists can be executed.
      const inner =
        typeof args?.tool === 'string'
          ? metaToolOf(args.tool, core.config().registrationMode)
          : undefined
      if (inner && inner.app === app) {
        const parsed = parseMetaArgs(app, 'execute', args)
        if ('error' in parsed) return parsed.error
        const innerArgs = parsed.value.arguments ?? {}
        return callMetaTool(core, session, inner, innerArgs, call)
      }
      return executeTool(core, session, app, args, call)
    }
    case 'batch':
      return batch(core, session, app, args)
    case 'batch_status':
      return batchStatus(core, session, app, args, call)
    case 'batch_cancel':
      return batchCancel(core, session, app, args)
    case 'load_tools':
      return loadTools(core, session, app, args)
  }
}
