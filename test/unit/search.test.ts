import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { loadManifests } from '../../src/catalog/manifest.js'
import { queryTerms, rankBySearch } from '../../src/catalog/search.js'

const CASES = fileURLToPath(
  new URL('../../../test/fixtures/tool_search_cases.json', import.meta.url),
)

type Cases = {
  tools: { name: string; description: string }[]
  cases: { search: string; expected: string[] }[]
}

test('search:upstream-parity: every case of the upstream fixture tool_search_cases.json', async () => {
  const fixture = JSON.parse(await readFile(CASES, 'utf8')) as Cases
  assert.equal(fixture.cases.length, 11)
  for (const c of fixture.cases) {
    assert.deepEqual(
      rankBySearch(fixture.tools, c.search).map((t) => t.name),
      c.expected,
      `search ${JSON.stringify(c.search)}`,
    )
  }
})

test('search:terms: stop-words, one-character terms and duplicates are dropped', () => {
  assert.deepEqual(queryTerms('How to block THE client, client!'), ['block', 'client'])
  assert.deepEqual(queryTerms('a x the'), [])
})

test('search:real-manifests: our own cases on the shipped manifests', async () => {
  const m = await loadManifests()
  const names = (app: 'network' | 'protect' | 'access', q: string) =>
    rankBySearch(m[app].tools, q).map((t) => t.name)
  // Captured from the upstream (reference §3.1): "block client" → 8, these three first.
  const block = names('network', 'block client')
  assert.equal(block.length, 8)
  assert.deepEqual(block.slice(0, 3), [
    'unifi_block_client',
    'unifi_list_blocked_clients',
    'unifi_unblock_client',
  ])
  // The multi-word agent query of upstream issue #478 finds the radio tools first.
  assert.deepEqual(names('network', 'update wlan radio tx power').slice(0, 2), [
    'unifi_update_device_radio',
    'unifi_update_wlan',
  ])
  // Prefix matching from four characters: "reboo" finds reboot tools.
  assert.ok(names('network', 'reboo').includes('unifi_reboot_device'))
  // Capped at 20.
  assert.equal(names('network', 'list').length, 20)
  assert.deepEqual(names('protect', 'camera snapshot')[0], 'protect_get_snapshot')
  assert.ok(names('access', 'unlock door').includes('access_unlock_door'))
  assert.deepEqual(names('network', 'the of'), [])
})
