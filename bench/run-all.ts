import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { discoveryBench } from './discovery-bytes.js'
import { executeBench } from './execute-bench.js'
import { machine, renderSection, type Section } from './lib.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/**
 * `npm run bench`: every benchmark in one run, as ratios against the same upstream called
 * directly. Writes bench/results/latest.md and replaces the table between the bench markers
 * in the README. Never part of `npm test`.
 */
async function main(): Promise<void> {
  const only = process.argv.slice(2)
  const started = Date.now()
  const sections: Section[] = []
  const want = (name: string) => only.length === 0 || only.includes(name)
  if (want('discovery')) sections.push(...(await discoveryBench()))
  if (want('execute')) sections.push(...(await executeBench()))
  const body = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machine()}; one run of \`npm run bench\` (${Math.round((Date.now() - started) / 1000)} s).`,
    ...sections.map(renderSection),
  ].join('\n\n')
  await mkdir(join(ROOT, 'bench', 'results'), { recursive: true })
  await writeFile(join(ROOT, 'bench', 'results', 'latest.md'), `${body}\n`)
  if (only.length === 0) {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
    const marked = /(<!-- bench:start -->\n)[\s\S]*?(\n<!-- bench:end -->)/
    if (marked.test(readme))
      await writeFile(join(ROOT, 'README.md'), readme.replace(marked, `$1${body}$2`))
  }
  process.stdout.write(`${body}\n`)
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`)
    process.exit(1)
  },
)
