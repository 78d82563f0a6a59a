import { spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { EVERYTHING } from '../test/helpers/everything.js'
import {
  type Gateway,
  httpUpstream,
  type Sim,
  startGateway,
  startSim,
  tempDir,
} from '../test/helpers/processes.js'

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, which needs Node 22,
 * fetched from npm as reference/mcp-spec-and-sdk.md describes) against the gateway's /mcp,
 * fronting the UniFi simulator and server-everything. Run by `.ci/run` (`npm run conformance`). It lives outside test/ because node --test runs every
 * file under a test/ folder, and `npm test` must not need the network.
 *
 * Every scenario that applies to what the gateway implements must pass. The baseline lists
 * only scenarios that call the suite's own fixture tools or prompts (test_simple_text, ...):
 * the gateway exposes upstream tools only under <upstream>__<name> and its own UniFi
 * meta-tools, so those names cannot exist here. Scenarios for features the gateway does not
 * offer (resources, completions) are not run, and are printed with the reason.
 */
const SUITE = [
  '-y',
  '-p',
  'node@22',
  '-p',
  '@modelcontextprotocol/conformance@0.1.16',
  'conformance',
]

const MUST_PASS = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'tools-list',
  'prompts-list',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
]

const FIXTURE_ONLY: Record<string, string> = {
  'tools-call-simple-text': 'calls the fixture tool test_simple_text',
  'tools-call-image': 'calls the fixture tool test_image_content',
  'tools-call-audio': 'calls the fixture tool test_audio_content',
  'tools-call-embedded-resource': 'calls the fixture tool test_embedded_resource',
  'tools-call-mixed-content': 'calls the fixture tool test_multiple_content_types',
  'tools-call-with-logging': 'calls the fixture tool test_tool_with_logging',
  'tools-call-error': 'calls the fixture tool test_error_handling',
  'tools-call-with-progress': 'calls the fixture tool test_tool_with_progress',
  'tools-call-sampling': 'calls the fixture tool test_sampling',
  'tools-call-elicitation': 'calls the fixture tool test_elicitation',
  'elicitation-sep1034-defaults': 'calls the fixture tool test_elicitation_sep1034_defaults',
  'elicitation-sep1330-enums': 'calls the fixture tool test_elicitation_sep1330_enums',
  'prompts-get-simple': 'gets the fixture prompt test_simple_prompt',
  'prompts-get-with-args': 'gets the fixture prompt test_prompt_with_arguments',
  'prompts-get-embedded-resource': 'gets the fixture prompt test_prompt_with_embedded_resource',
  'prompts-get-with-image': 'gets the fixture prompt test_prompt_with_image',
}

const NOT_OFFERED: Record<string, string> = {
  'completion-complete': 'the gateway does not offer completions',
  'resources-list': 'the gateway does not serve resources',
  'resources-read-text': 'the gateway does not serve resources',
  'resources-read-binary': 'the gateway does not serve resources',
  'resources-templates-read': 'the gateway does not serve resources',
  'resources-subscribe': 'the gateway does not serve resources',
  'resources-unsubscribe': 'the gateway does not serve resources',
}

type Run = { code: number | null; out: string }

function conformance(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('npx', [...SUITE, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout?.on('data', (d) => {
      out += d
    })
    child.stderr?.on('data', (d) => {
      out += d
    })
    child.once('error', (err) => resolve({ code: -1, out: String(err) }))
    child.once('exit', (code) => resolve({ code, out }))
  })
}

const clean = (out: string) =>
  out
    .split('\n')
    .filter((l) => !/npm warn|EBADENGINE|^\s*(package|required|current):|^\s*}\s*$/.test(l))
    .join('\n')

async function main(): Promise<number> {
  // Fetch the suite first, so that a missing registry is reported as exactly that.
  const probe = await conformance(['--version'])
  if (probe.code !== 0) {
    process.stderr.write(
      `CONFORMANCE NOT RUN: could not fetch @modelcontextprotocol/conformance@0.1.16 with Node 22 from npm (npx exit ${probe.code}).\n${clean(probe.out)}\n`,
    )
    return 1
  }
  const dir = await tempDir('umg-conformance-')
  const baseline = join(dir, 'baseline.yml')
  await writeFile(
    baseline,
    `server:\n${Object.entries(FIXTURE_ONLY)
      .map(([s, why]) => `  - ${s} # ${why}`)
      .join('\n')}\n`,
  )
  let sim: Sim | undefined
  let gw: Gateway | undefined
  const failures: string[] = []
  try {
    sim = await startSim('network', 'hq')
    // The suite cannot send headers, so this gateway runs without a client token, which it
    // allows only on loopback.
    gw = await startGateway({
      upstreams: [
        httpUpstream('hq-network', 'hq', 'network', sim.url),
        {
          name: 'everything',
          app: 'generic',
          transport: 'stdio',
          command: process.execPath,
          args: [EVERYTHING, 'stdio'],
        },
      ],
    })
    process.stdout.write(`conformance suite 0.1.16 against ${gw.url}\n`)
    for (const scenario of [...MUST_PASS, ...Object.keys(FIXTURE_ONLY)]) {
      const expected = scenario in FIXTURE_ONLY
      const run = await conformance([
        'server',
        '--url',
        gw.url,
        '--scenario',
        scenario,
        '-o',
        join(dir, 'results'),
        ...(expected ? ['--expected-failures', baseline] : []),
      ])
      // A baseline entry must fail for the stated reason, the fixture's absence, and no other.
      const ok = run.code === 0 && (!expected || /Unknown (tool|prompt):? "?test_/.test(run.out))
      const mark = !ok ? '✗' : expected ? '≈' : '✓'
      const note = expected
        ? ` failed as expected: ${FIXTURE_ONLY[scenario]}, which the gateway cannot have`
        : ''
      process.stdout.write(`${mark} ${scenario}${note}\n`)
      if (!ok) {
        failures.push(scenario)
        process.stdout.write(`${clean(run.out)}\n`)
      }
    }
    for (const [scenario, why] of Object.entries(NOT_OFFERED))
      process.stdout.write(`- ${scenario}: not run, ${why}\n`)
  } finally {
    await gw?.stop()
    await sim?.kill()
  }
  process.stdout.write(
    failures.length === 0
      ? `conformance: ${MUST_PASS.length} scenarios passed, ${Object.keys(FIXTURE_ONLY).length} fixture-only scenarios failed as the baseline expects\n`
      : `conformance FAILED: ${failures.join(', ')}\n`,
  )
  return failures.length === 0 ? 0 : 1
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(
      `conformance run crashed: ${err instanceof Error ? err.stack : String(err)}\n`,
    )
    process.exit(1)
  },
)
