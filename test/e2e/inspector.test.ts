import assert from 'node:assert/strict'
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { CLI, freePort, TOKEN } from '../helpers/processes.js'
import { waitFor } from '../helpers/results.js'

const INSPECTOR = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/inspector-cli/build/cli.js',
)
// inspector-cli 1.0.3 resolves its own package.json relative to the working directory, so it
// must run from a folder whose parent holds a package.json: the project's test/ folder.
const CWD = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test')

type Printed = {
  content?: { type: string; text: string }[]
  isError?: boolean
  tools?: { name: string }[]
  messages?: { content: { text: string } }[]
}

describe('a third-party client end to end: the MCP Inspector CLI against the running demo', () => {
  let demo: ChildProcess
  let url: string

  /** Run the inspector as a user would, and parse what it prints. */
  function inspector(...args: string[]): Promise<Printed> {
    return new Promise((resolve, reject) => {
      execFile(
        process.execPath,
        [
          INSPECTOR,
          '--cli',
          url,
          '--transport',
          'http',
          '--header',
          `Authorization: Bearer ${TOKEN}`,
          ...args,
        ],
        { cwd: CWD, timeout: 60_000 },
        (err, stdout, stderr) => {
          if (err) return reject(new Error(`inspector failed: ${err.message}\n${stderr}`))
          resolve(JSON.parse(stdout) as Printed)
        },
      )
    })
  }
  const json = (p: Printed) => JSON.parse(p.content?.[0]?.text ?? '{}')

  before(async () => {
    const port = await freePort()
    url = `http://127.0.0.1:${port}/mcp`
    demo = spawn(process.execPath, [CLI, 'serve'], {
      env: { ...process.env, GATEWAY_PORT: String(port), GATEWAY_TOKEN: TOKEN, GATEWAY_CONFIG: '' },
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    let out = ''
    demo.stdout?.on('data', (d) => {
      out += d
    })
    await waitFor('the demo', () => (out.includes('Token:') ? true : undefined), 30_000)
  })
  after(async () => {
    demo.kill('SIGTERM')
    await new Promise((r) => demo.once('exit', r))
  })

  test('inspector:list-tools: the meta-tools of the three apps', async () => {
    const printed = await inspector('--method', 'tools/list')
    const names = (printed.tools ?? []).map((t) => t.name)
    for (const n of [
      'unifi_tool_index',
      'unifi_execute',
      'unifi_batch',
      'unifi_batch_status',
      'protect_tool_index',
      'access_execute',
    ])
      assert.ok(names.includes(n), n)
  })

  test('inspector:search-the-index: "block client" finds unifi_block_client first', async () => {
    const index = json(
      await inspector(
        '--method',
        'tools/call',
        '--tool-name',
        'unifi_tool_index',
        '--tool-arg',
        'search=block client',
      ),
    )
    assert.equal(index.tools[0].name, 'unifi_block_client')
    assert.deepEqual(index.tools[0].sites, ['branch', 'hq'])
  })

  test('inspector:execute: the clients of site hq', async () => {
    const printed = await inspector(
      '--method',
      'tools/call',
      '--tool-name',
      'unifi_execute',
      '--tool-arg',
      'tool=unifi_list_clients',
      'site=hq',
    )
    assert.equal(printed.isError, false)
    const body = json(printed)
    assert.equal(body.site, 'hq')
    assert.match(body.clients[0].hostname, /^hq-/)
  })

  test('inspector:batch-and-wait: a fan-out over both sites, then one status call that waits', async () => {
    const started = json(
      await inspector(
        '--method',
        'tools/call',
        '--tool-name',
        'unifi_batch',
        '--tool-arg',
        'operations=[{"tool":"unifi_list_devices","site":"*"}]',
      ),
    )
    assert.deepEqual(
      started.jobs.map((j: { site: string }) => j.site),
      ['branch', 'hq'],
    )
    const ids = JSON.stringify(started.jobs.map((j: { jobId: string }) => j.jobId))
    const status = json(
      await inspector(
        '--method',
        'tools/call',
        '--tool-name',
        'unifi_batch_status',
        '--tool-arg',
        `jobIds=${ids}`,
        'wait_ms=10000',
      ),
    )
    assert.deepEqual(
      status.jobs.map((j: { status: string }) => j.status),
      ['done', 'done'],
    )
    assert.equal(status.jobs[0].result.site, 'branch')
  })

  test('inspector:get-prompt: the network health check brief of site hq', async () => {
    const printed = await inspector(
      '--method',
      'prompts/get',
      '--prompt-name',
      'hq-network__network_health_check',
      '--prompt-args',
      'site_id=hq',
    )
    const text = printed.messages?.[0]?.content.text ?? ''
    assert.match(text, /# Network health check/)
    assert.match(text, /"site_id": "hq"/)
  })
})
