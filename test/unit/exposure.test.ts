import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { createLogger } from '../../src/core/logger.js'
import { Exposure } from '../../src/gateway/exposure.js'
import type { UpstreamRuntime } from '../../src/gateway/registry.js'
import { genericToolDefinitions } from '../../src/gateway/tool-list.js'

const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({
  name,
  inputSchema: { type: 'object' },
  ...extra,
})

test('exposure:left-out-not-renamed: too long, bad characters, duplicates and task-only tools are reported once', () => {
  const lines: Record<string, unknown>[] = []
  const exposure = new Exposure(createLogger({ sink: (l) => lines.push(JSON.parse(l)) }))
  const rt = {
    config: { name: 'a-very-long-upstream-nm' },
    tools: [
      tool('ok_tool'),
      tool('x'.repeat(40)),
      tool('has space'),
      tool('dup'),
      tool('dup'),
      tool('tasks', { execution: { taskSupport: 'required' } }),
    ],
  } as unknown as UpstreamRuntime
  const defs = genericToolDefinitions(rt, exposure)
  assert.deepEqual(
    defs.map((d) => d.name),
    ['a-very-long-upstream-nm__ok_tool', 'a-very-long-upstream-nm__dup'],
  )
  genericToolDefinitions(rt, exposure)
  const reasons = exposure.list().map((e) => `${e.name}: ${e.reason}`)
  assert.equal(reasons.length, 4)
  assert.match(reasons[0] as string, /is 65 characters long; the limit is 64/)
  assert.match(reasons[1] as string, /outside \[A-Za-z0-9_-\]/)
  assert.match(reasons[2] as string, /listed twice/)
  assert.match(reasons[3] as string, /task augmentation/)
  assert.equal(lines.filter((l) => l.msg === 'tool left out').length, 4, 'each logged once')
  exposure.forget('a-very-long-upstream-nm')
  assert.equal(exposure.list().length, 0)
})
