import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { discoveryBench } from './discovery-bytes.js'
import { executeBench } from './execute-bench.js'
import { machine, renderSection, type Section } from './lib.js'
import { soakBench } from './soak.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/**
 * `npm run bench`: every benchmark in one run, as ratios against the same upstream called
 * directly, plus the soak check. Writes bench/results/latest.md and replaces the tables
 * between the bench markers in the README. `npm run soak` runs only the soak check and fails
 * when it does. Never part of `npm test`.
 */
async function main(): Promise<number> {
  const only = process.argv.slice(2)
  const all = only.length === 0
  const want = (name: string) => all || only.includes(name)
  const started = Date.now()
  const sections: Section[] = []
  let ok = true
  if (want('discovery')) sections.push(...(await discoveryBench()))
  if (want('execute')) sections.push(...(await executeBench()))
  if (want('soak')) {
    const soak = await soakBench()
    sections.push(soak.section)
    ok = soak.ok
  }
  const body = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machine()}; one run of \`npm run bench\` (${Math.round((Date.now() - started) / 1000)} s).`,
    ...sections.map(renderSection),
  ].join('\n\n')
  await mkdir(join(ROOT, 'bench', 'results'), { recursive: true })
  await writeFile(
    join(ROOT, 'bench', 'results', all ? 'latest.md' : `${only.join('-')}.md`),
    `${body}\n`,
  )
  if (all) {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
    const marked = /(<!-- bench:start -->\n)[\s\S]*?(\n<!-- bench:end -->)/
    if (marked.test(readme))
      await writeFile(join(ROOT, 'README.md'), readme.replace(marked, `$1${body}$2`))
  }
  process.stdout.write(`${body}\n`)
  if (!ok) process.stderr.write('soak check FAILED: see the table above\n')
  return ok ? 0 : 1
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`)
    process.exit(1)
  },
)
