import type { Readable } from 'node:stream'
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { UpstreamConfig } from '../config/schema.js'
import { nodeFetch } from './node-fetch.js'

/**
 * Headers for an HTTP upstream, built from that upstream's own config entry only:
 * the downstream client's token never reaches an upstream (MCP security best practices,
 * "token passthrough"). `headers.Authorization` overrides `bearer_token`, as in MCPJungle.
 */
export function upstreamHeaders(config: UpstreamConfig): Record<string, string> {
  if (config.transport !== 'streamable_http') return {}
  const headers: Record<string, string> = { ...config.headers }
  const hasAuth = Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')
  if (!hasAuth && config.bearer_token) headers.Authorization = `Bearer ${config.bearer_token}`
  return headers
}

export type BuiltTransport = { transport: Transport; stderr?: Readable | null }

export function createUpstreamTransport(config: UpstreamConfig): BuiltTransport {
  if (config.transport === 'streamable_http') {
    return {
      transport: new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: upstreamHeaders(config) },
        fetch: nodeFetch,
        // The connection manager re-establishes lost sessions itself; the SDK's own retries
        // of a dropped GET stream would only delay noticing that the upstream is gone.
        reconnectionOptions: {
          initialReconnectionDelay: 500,
          maxReconnectionDelay: 2_000,
          reconnectionDelayGrowFactor: 2,
          maxRetries: 1,
        },
      }),
    }
  }
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    env: { ...getDefaultEnvironment(), ...config.env },
    ...(config.cwd ? { cwd: config.cwd } : {}),
    stderr: 'pipe',
  })
  return { transport, stderr: transport.stderr as Readable | null }
}
