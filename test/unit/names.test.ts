import assert from 'node:assert/strict'
import { test } from 'node:test'
import { exposedNameProblem, namespaced, splitNamespaced } from '../../src/core/names.js'

test('names:split-on-first: an upstream tool name may itself contain "__"', () => {
  assert.deepEqual(splitNamespaced('aws__ec2__create_sg'), {
    upstream: 'aws',
    local: 'ec2__create_sg',
  })
  assert.deepEqual(splitNamespaced('hq-network__unifi_list_clients'), {
    upstream: 'hq-network',
    local: 'unifi_list_clients',
  })
  assert.equal(splitNamespaced('unifi_execute'), undefined)
  assert.equal(splitNamespaced('__x'), undefined)
  assert.equal(splitNamespaced('x__'), undefined)
})

test('names:exposed: at most 64 characters of [A-Za-z0-9_-], never renamed', () => {
  assert.equal(exposedNameProblem(namespaced('everything', 'get-sum')), undefined)
  assert.match(
    String(exposedNameProblem(`${'a'.repeat(24)}__${'b'.repeat(40)}`)),
    /66 characters long; the limit is 64/,
  )
  assert.match(String(exposedNameProblem('everything__Model Details')), /outside \[A-Za-z0-9_-\]/)
  assert.match(String(exposedNameProblem('srv__a.b')), /outside/)
})
