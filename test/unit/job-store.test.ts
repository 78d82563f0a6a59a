import assert from 'node:assert/strict'
import { test } from 'node:test'
import { callerFromSites } from '../../src/core/caller.js'
import { JobStore } from '../../src/jobs/job-store.js'

const alice = callerFromSites('alice', ['*'])
const bob = callerFromSites('bob', ['*'])

test('jobs:retention-count: at most maxRetainedJobs finished jobs are kept, oldest evicted first', () => {
  const store = new JobStore({
    maxQueuedJobs: 1_000,
    jobRetentionMs: 3_600_000,
    maxRetainedJobs: 10,
  })
  const ids: string[] = []
  for (let i = 0; i < 25; i++) {
    const job = store.create('alice', 'unifi_list_clients')
    store.succeed(job, { i })
    ids.push(job.id)
  }
  assert.equal(store.stats().retained, 10)
  assert.equal(store.statusOf(alice, ids[0] as string).status, 'unknown')
  assert.equal(store.statusOf(alice, ids[24] as string).status, 'done')
})

test('jobs:retention-time: finished jobs expire after jobRetentionMs; running jobs are never evicted', () => {
  let now = 1_000_000
  const store = new JobStore(
    { maxQueuedJobs: 100, jobRetentionMs: 60_000, maxRetainedJobs: 5 },
    () => now,
  )
  const running = store.create('alice', 'slow')
  store.markRunning(running)
  const finished = store.create('alice', 'fast')
  store.succeed(finished, 'ok')
  for (let i = 0; i < 20; i++) store.fail(store.create('alice', 'noise'), 'x')
  now += 61_000
  assert.equal(store.statusOf(alice, finished.id).status, 'unknown')
  assert.equal(store.statusOf(alice, running.id).status, 'running')
  const dict = store.statusOf(alice, running.id) as { started: number }
  assert.equal(dict.started, 1_000)
})

test('jobs:ownership: another caller sees unknown and cannot cancel', () => {
  const store = new JobStore({ maxQueuedJobs: 10, jobRetentionMs: 60_000, maxRetainedJobs: 10 })
  const job = store.create('alice', 't')
  assert.deepEqual(store.statusOf(bob, job.id), { status: 'unknown' })
  assert.equal(store.cancel(bob, job.id, 'no'), 'unknown')
  assert.equal(store.cancel(alice, job.id, 'stop'), 'cancelled')
  assert.equal(job.controller.signal.aborted, true)
  assert.equal(store.cancel(alice, job.id, 'again'), 'cancelled')
})

test('jobs:capacity: creation beyond maxQueuedJobs is refused with a clear error', () => {
  const store = new JobStore({ maxQueuedJobs: 2, jobRetentionMs: 60_000, maxRetainedJobs: 10 })
  store.create('alice', 'a')
  store.create('alice', 'b')
  assert.throws(
    () => store.create('alice', 'c'),
    /already has 2 queued or running jobs \(limits.maxQueuedJobs = 2\)/,
  )
})

test('jobs:bounded-memory: 100,000 jobs leave only maxRetainedJobs behind', () => {
  const store = new JobStore({
    maxQueuedJobs: 1_000,
    jobRetentionMs: 3_600_000,
    maxRetainedJobs: 1_000,
  })
  for (let i = 0; i < 100_000; i++)
    store.succeed(store.create('alice', 'unifi_list_clients'), { success: true, i })
  const stats = store.stats()
  assert.equal(stats.created, 100_000)
  assert.equal(stats.retained, 1_000)
  assert.equal(store.activeCount, 0)
})

test('jobs:wait: waitFor resolves when the listed jobs finish, or at the deadline', async () => {
  const store = new JobStore({ maxQueuedJobs: 10, jobRetentionMs: 60_000, maxRetainedJobs: 10 })
  const a = store.create('alice', 'a')
  const b = store.create('alice', 'b')
  const seen: string[] = []
  setImmediate(() => store.succeed(a, 1))
  setImmediate(() => store.fail(b, 'boom'))
  await store.waitFor(alice, [a.id, b.id], 10_000, undefined, (n, total) =>
    seen.push(`${n}/${total}`),
  )
  assert.deepEqual(seen, ['1/2', '2/2'])
  const c = store.create('alice', 'c')
  const started = Date.now()
  await store.waitFor(alice, [c.id], 50)
  assert.ok(Date.now() - started < 1_000)
  assert.equal(store.statusOf(alice, c.id).status, 'queued')
})
