import { randomUUID } from 'node:crypto'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import { LRUCache } from 'lru-cache'

/**
 * Stateful MCP Streamable HTTP sessions over the SDK's web-standard transport:
 * `Request → Response`, so any web framework can mount it. A session is bound to the
 * owner (token) that created it: another token using its id gets 404, as if it did not
 * exist (MCP security best practices: sessions are not authentication). Idle sessions
 * expire; closing a session closes its server, which aborts its in-flight requests.
 */
export type HostedSession<S> = {
  readonly id: string
  readonly owner: string
  readonly server: Server
  readonly transport: WebStandardStreamableHTTPServerTransport
  readonly state: S
}

export type SessionHostOptions<S, C = undefined> = {
  /** Build the server (and any per-session state) for a new session. */
  create(owner: string, sessionId: string, context: C): { server: Server; state: S }
  onClosed?(session: HostedSession<S>): void
  idleMs: number
  max: number
  maxBodyBytes?: number
}

function rpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  })
}

export class SessionHost<S, C = undefined> {
  readonly #sessions: LRUCache<string, HostedSession<S>>
  readonly #opts: SessionHostOptions<S, C>
  #closed = false

  constructor(opts: SessionHostOptions<S, C>) {
    this.#opts = opts
    this.#sessions = new LRUCache<string, HostedSession<S>>({
      max: opts.max,
      ttl: opts.idleMs,
      updateAgeOnGet: true,
      ttlAutopurge: true,
      dispose: (session) => this.#dispose(session),
    })
  }

  get size(): number {
    return this.#sessions.size
  }

  sessions(): HostedSession<S>[] {
    return [...this.#sessions.values()]
  }

  /**
   * Handle one request to the MCP endpoint. `parsedBody` is the already-read JSON body of a
   * POST (the raw stream is consumed by then), or undefined for GET and DELETE. `context`
   * is handed to `create` when this request opens a session.
   */
  async handle(req: Request, owner: string, parsedBody: unknown, context: C): Promise<Response> {
    if (this.#closed) return rpcError(503, -32000, 'The server is shutting down')
    const sessionId = req.headers.get('mcp-session-id')
    if (sessionId) {
      const session = this.#sessions.get(sessionId)
      if (!session || session.owner !== owner)
        return rpcError(404, -32001, 'Session not found: initialize a new session')
      return session.transport.handleRequest(req, { parsedBody })
    }
    if (req.method !== 'POST')
      return rpcError(400, -32000, 'Bad Request: No valid session ID provided')
    const messages = Array.isArray(parsedBody) ? parsedBody : [parsedBody]
    if (!messages.some((m) => isInitializeRequest(m)))
      return rpcError(400, -32000, 'Bad Request: No valid session ID provided')
    const id = randomUUID()
    const { server, state } = this.#opts.create(owner, id, context)
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: (sid) => {
        this.#sessions.set(sid, { id: sid, owner, server, transport, state })
      },
      onsessionclosed: (sid) => {
        this.#sessions.delete(sid)
      },
      ...(this.#opts.maxBodyBytes ? { maxRequestBodySize: this.#opts.maxBodyBytes } : {}),
    })
    transport.onclose = () => {
      const current = this.#sessions.peek(id)
      if (current?.transport === transport) this.#sessions.delete(id)
    }
    await server.connect(transport)
    return transport.handleRequest(req, { parsedBody })
  }

  async close(): Promise<void> {
    this.#closed = true
    const all = [...this.#sessions.values()]
    this.#sessions.clear()
    await Promise.all(all.map((s) => s.server.close().catch(() => {})))
  }

  #dispose(session: HostedSession<S>): void {
    this.#opts.onClosed?.(session)
    session.server.close().catch(() => {})
  }
}
