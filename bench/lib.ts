import { cpus, totalmem } from 'node:os'

/** One table of a benchmark run, rendered as markdown. */
export type Section = {
  title: string
  columns: string[]
  rows: (string | number)[][]
  notes?: string[]
}

export function machine(): string {
  const cpu = cpus()[0]?.model?.trim() ?? 'unknown CPU'
  return `${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}`
}

export function renderSection(s: Section): string {
  const head = `| ${s.columns.join(' | ')} |\n|${s.columns.map(() => '---').join('|')}|`
  const rows = s.rows.map((r) => `| ${r.join(' | ')} |`).join('\n')
  const notes = (s.notes ?? []).map((n) => `\n${n}`).join('\n')
  return `### ${s.title}\n\n${head}\n${rows}\n${notes}`
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[i] as number
}

export const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`
export const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`
export const ms = (v: number) => `${v.toFixed(2)} ms`

export function bytesOf(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8')
}
