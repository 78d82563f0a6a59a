import assert from 'node:assert/strict'
import { request } from 'node:http'
import { after, before, describe, test } from 'node:test'
import {
  type Gateway,
  httpUpstream,
  OTHER_TOKEN,
  type Sim,
  startGateway,
  startSim,
  TOKEN,
} from '../helpers/processes.js'

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'raw', version: '0' },
  },
}

type Raw = { status: number; headers: Record<string, string | string[] | undefined>; body: string }

/** A raw HTTP request (node:http, so that Host can be set freely). */
function raw(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'POST', headers: opts.headers }, (res) => {
      let body = ''
      res.on('data', (d) => {
        body += d
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end(opts.body)
  })
}

const mcpHeaders = (token?: string) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  ...(token ? { authorization: `Bearer ${token}` } : {}),
})

describe('http guards on /mcp', () => {
  let sim: Sim
  let gw: Gateway
  before(async () => {
    sim = await startSim('network', 'hq')
    gw = await startGateway({
      auth: {
        tokens: [
          { name: 'agent', token: TOKEN },
          { name: 'other', token: OTHER_TOKEN },
        ],
      },
      listen: {
        host: '127.0.0.1',
        port: 0,
        allowedHosts: ['gw.example.lan'],
        allowedOrigins: ['https://inspector.example.lan'],
      },
      limits: { maxBodyBytes: 4096 },
      upstreams: [httpUpstream('hq-network', 'hq', 'network', sim.url)],
    })
  })
  after(async () => {
    await gw?.stop()
    await sim?.kill()
  })

  test('auth:no-token: 401 with WWW-Authenticate: Bearer', async () => {
    const res = await raw(gw.url, { headers: mcpHeaders(), body: JSON.stringify(INIT) })
    assert.equal(res.status, 401)
    assert.match(String(res.headers['www-authenticate']), /^Bearer/)
  })

  test('auth:wrong-token: 401, also for a prefix of a real token', async () => {
    for (const token of ['nope-nope-nope-nope-nope', TOKEN.slice(0, -1), `${TOKEN}x`]) {
      const res = await raw(gw.url, { headers: mcpHeaders(token), body: JSON.stringify(INIT) })
      assert.equal(res.status, 401, token)
    }
  })

  test('auth:right-token: initialize succeeds and returns a session id', async () => {
    const res = await raw(gw.url, { headers: mcpHeaders(TOKEN), body: JSON.stringify(INIT) })
    assert.equal(res.status, 200)
    assert.ok(res.headers['mcp-session-id'])
    assert.match(res.body, /unifi-mcp-gateway/)
  })

  test('auth:session-bound-to-token: another token cannot use a session it did not open', async () => {
    const init = await raw(gw.url, { headers: mcpHeaders(TOKEN), body: JSON.stringify(INIT) })
    const sid = String(init.headers['mcp-session-id'])
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
    const stolen = await raw(gw.url, {
      headers: {
        ...mcpHeaders(OTHER_TOKEN),
        'mcp-session-id': sid,
        'mcp-protocol-version': '2025-11-25',
      },
      body: list,
    })
    assert.equal(stolen.status, 404)
    const own = await raw(gw.url, {
      headers: {
        ...mcpHeaders(TOKEN),
        'mcp-session-id': sid,
        'mcp-protocol-version': '2025-11-25',
      },
      body: list,
    })
    assert.equal(own.status, 200)
  })

  test('guard:host: a foreign Host is refused with 403; loopback and allowed hosts pass', async () => {
    const evil = await raw(gw.url, {
      headers: { ...mcpHeaders(TOKEN), host: 'evil.example.com' },
      body: JSON.stringify(INIT),
    })
    assert.equal(evil.status, 403)
    assert.match(evil.body, /Host/)
    const allowed = await raw(gw.url, {
      headers: { ...mcpHeaders(TOKEN), host: `gw.example.lan:${gw.port}` },
      body: JSON.stringify(INIT),
    })
    assert.equal(allowed.status, 200)
    const local = await raw(gw.url, {
      headers: { ...mcpHeaders(TOKEN), host: `localhost:${gw.port}` },
      body: JSON.stringify(INIT),
    })
    assert.equal(local.status, 200)
  })

  test('guard:origin: a foreign Origin is refused with 403; loopback and allowed origins pass', async () => {
    const evil = await raw(gw.url, {
      headers: { ...mcpHeaders(TOKEN), origin: 'http://evil.example.com' },
      body: JSON.stringify(INIT),
    })
    assert.equal(evil.status, 403)
    assert.match(evil.body, /Origin/)
    for (const origin of [`http://localhost:${gw.port}`, 'https://inspector.example.lan']) {
      const ok = await raw(gw.url, {
        headers: { ...mcpHeaders(TOKEN), origin },
        body: JSON.stringify(INIT),
      })
      assert.equal(ok.status, 200, origin)
    }
  })

  test('guard:body-size: a body over limits.maxBodyBytes gets 413 before anything else runs', async () => {
    const big = JSON.stringify({ ...INIT, params: { ...INIT.params, pad: 'x'.repeat(10_000) } })
    const res = await raw(gw.url, { headers: mcpHeaders(TOKEN), body: big })
    assert.equal(res.status, 413)
    assert.match(res.body, /too large/)
  })

  test('guard:bad-json: a body that is not JSON gets a JSON-RPC parse error, and the gateway stays up', async () => {
    const res = await raw(gw.url, { headers: mcpHeaders(TOKEN), body: '{"jsonrpc": ' })
    assert.equal(res.status, 400)
    assert.match(res.body, /-32700/)
    const health = await fetch(gw.url.replace('/mcp', '/health'))
    assert.equal(health.status, 200)
  })
})
