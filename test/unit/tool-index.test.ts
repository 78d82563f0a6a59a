import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadManifests, type Manifest } from '../../src/catalog/manifest.js'
import { queryToolIndex } from '../../src/catalog/tool-index.js'

/** Category table of the reference (§4), per app: category → number of tools. */
const CATEGORIES = {
  network: {
    acl: 5,
    client_groups: 5,
    clients: 12,
    content_filtering: 4,
    devices: 21,
    dns: 5,
    dpi: 2,
    dynamic_dns: 5,
    events: 7,
    firewall: 15,
    gateway_settings: 2,
    hotspot: 4,
    network: 16,
    oon: 6,
    port_forwards: 7,
    qos: 6,
    routing: 5,
    stats: 15,
    switch: 15,
    system: 10,
    traffic_flows: 2,
    traffic_routes: 4,
    usergroups: 4,
    vpn: 7,
  },
  protect: {
    alarm: 9,
    cameras: 12,
    devices: 7,
    events: 9,
    liveviews: 3,
    recognition: 7,
    recordings: 4,
    system: 5,
  },
  access: { credentials: 4, devices: 5, doors: 6, events: 5, policies: 4, system: 3, visitors: 4 },
} as const

const items = (m: Manifest) => m.tools.map((entry) => ({ entry, sites: ['hq'] }))

test('index:categories-and-counts: every app, every category, as in the reference', async () => {
  const manifests = await loadManifests()
  for (const [app, table] of Object.entries(CATEGORIES) as [
    keyof typeof CATEGORIES,
    Record<string, number>,
  ][]) {
    const all = queryToolIndex(
      items(manifests[app]),
      { includeSchemas: false },
      { withSites: false },
    )
    assert.deepEqual(all.categories, Object.keys(table).sort(), app)
    for (const [category, n] of Object.entries(table)) {
      const r = queryToolIndex(
        items(manifests[app]),
        { category, includeSchemas: false },
        { withSites: false },
      )
      assert.equal(r.count, n, `${app}/${category}`)
      assert.equal(r.filtered, true)
    }
  }
  assert.equal(Object.keys(CATEGORIES.network).length, 24)
})

test('index:shape: entries {name, title?, description}; schemas give the stored entry; filtered only when filtering', async () => {
  const { network } = await loadManifests()
  const all = queryToolIndex(items(network), { includeSchemas: false }, { withSites: false })
  assert.equal(all.count, 189)
  assert.equal(all.filtered, undefined)
  assert.deepEqual(Object.keys(all.tools[0] as object), ['name', 'title', 'description'])
  const dpi = queryToolIndex(
    items(network),
    { category: 'DPI', includeSchemas: true },
    { withSites: false },
  )
  assert.equal(dpi.count, 2)
  assert.deepEqual(dpi.tools[0], network.byName.get('unifi_list_dpi_applications')?.raw)
  assert.deepEqual(Object.keys(dpi.tools[0] as object), [
    'annotations',
    'description',
    'name',
    'schema',
    'title',
  ])
  const none = queryToolIndex(
    items(network),
    { search: 'the of', includeSchemas: false },
    { withSites: false },
  )
  assert.deepEqual([none.count, none.filtered, none.categories.length], [0, true, 24])
  const nope = queryToolIndex(
    items(network),
    { category: 'nope', includeSchemas: false },
    { withSites: false },
  )
  assert.deepEqual([nope.count, nope.filtered], [0, true])
})

test('index:name: exact, case-sensitive lookup of one tool (upstream issue #736)', async () => {
  const { network } = await loadManifests()
  const one = queryToolIndex(
    items(network),
    { name: 'unifi_block_client', includeSchemas: true },
    { withSites: false },
  )
  assert.equal(one.count, 1)
  assert.deepEqual(one.tools[0], network.byName.get('unifi_block_client')?.raw)
  assert.equal(
    queryToolIndex(
      items(network),
      { name: 'UNIFI_BLOCK_CLIENT', includeSchemas: false },
      { withSites: false },
    ).count,
    0,
  )
})

test('index:sites: with several sites, every entry lists them', async () => {
  const { access } = await loadManifests()
  const r = queryToolIndex(
    access.tools.map((entry) => ({ entry, sites: ['branch', 'hq'] })),
    { search: 'door', includeSchemas: false },
    { withSites: true },
  )
  assert.ok(r.count > 0)
  for (const t of r.tools) assert.deepEqual(t.sites, ['branch', 'hq'])
})
