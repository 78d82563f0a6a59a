import type { ToolEntry } from '../catalog/manifest.js'
import type { Config, UpstreamConfig } from '../config/schema.js'

/**
 * The gateway's read-only policy (issue: "refuses mutating tools with a clear error before
 * anything is sent upstream"). A tool is mutating unless its manifest says
 * `readOnlyHint: true` (reference §4: treat anything else as a write). The upstream's own
 * `confirm` gate is not touched: `confirm` passes through as the caller sent it.
 */
export function readOnlyRefusal(
  config: Pick<Config, 'readOnly'>,
  upstream: Pick<UpstreamConfig, 'name' | 'site' | 'readOnly'>,
  tool: Pick<ToolEntry, 'name' | 'readOnly'>,
): string | undefined {
  if (tool.readOnly) return undefined
  const upstreamSetting = upstream.readOnly
  const readOnly = upstreamSetting ?? config.readOnly
  if (!readOnly) return undefined
  const where =
    upstreamSetting !== undefined
      ? `upstream ${upstream.name} is read-only at the gateway (its "readOnly": true)`
      : `the gateway is read-only ("readOnly": true)`
  return `${tool.name} changes state on site ${upstream.site}, and ${where}; nothing was sent upstream. Use a read-only tool, or ask the operator to lift the read-only setting.`
}
