import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { runCli, startSim, tempDir } from '../helpers/processes.js'

const MANIFESTS = fileURLToPath(new URL('../../../manifests/', import.meta.url))

/** Everything but the two provenance lines must be byte-identical. */
const body = (text: string) =>
  text.replace(/\n {2}"generated_by": "[^"]*",/, '').replace(/\n {2}"note": "[^"]*",/, '')

describe('manifest sync', () => {
  for (const app of ['network', 'protect', 'access'] as const) {
    test(`manifest:sync-reproduces-${app}: a running sim's index rebuilds the shipped manifest, module_map included`, async (t) => {
      const sim = await startSim(app, 'hq')
      t.after(() => sim.kill())
      const out = join(await tempDir(), `${app}.json`)
      const r = await runCli(['manifest', 'sync', '--url', sim.url, '--app', app, '--out', out])
      assert.equal(r.code, 0, r.stderr)
      const [rebuilt, shipped] = await Promise.all([
        readFile(out, 'utf8'),
        readFile(join(MANIFESTS, `${app}.json`), 'utf8'),
      ])
      assert.equal(body(rebuilt), body(shipped))
      assert.match(rebuilt, /"generated_by": "unifi-mcp-gateway manifest sync"/)
    })
  }

  test('manifest:sync-follows-the-upstream: a release without some tools gives a manifest without them', async (t) => {
    const sim = await startSim('access', 'hq', ['--exclude-tools', 'access_unlock_door'])
    t.after(() => sim.kill())
    const r = await runCli(['manifest', 'sync', '--url', sim.url, '--app', 'access'])
    assert.equal(r.code, 0, r.stderr)
    const manifest = JSON.parse(r.stdout) as {
      count: number
      module_map: Record<string, string>
      tools: { name: string }[]
    }
    assert.equal(manifest.count, 35)
    assert.ok(!manifest.tools.some((x) => x.name === 'access_unlock_door'))
    assert.equal(manifest.module_map.access_lock_door, 'unifi_access_mcp.tools.doors')
  })

  test('manifest:sync-bad-usage: a missing --app or an unreachable URL fails clearly', async () => {
    assert.equal((await runCli(['manifest', 'sync', '--url', 'http://127.0.0.1:9/mcp'])).code, 2)
    const r = await runCli([
      'manifest',
      'sync',
      '--url',
      'http://127.0.0.1:9/mcp',
      '--app',
      'network',
    ])
    assert.equal(r.code, 1)
    assert.match(r.stderr, /unreachable/)
  })
})
