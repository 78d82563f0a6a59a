import { type ParseArgsConfig, parseArgs } from 'node:util'

/** A usage problem: the command prints it with its usage and exits 2. */
export class UsageError extends Error {}

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: T,
) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true })
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err))
  }
}

export function intOption(
  value: string | undefined,
  name: string,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${name} must be an integer from ${min} to ${max}, got "${value}"`)
  return n
}

export function numberOption(
  value: string | undefined,
  name: string,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isFinite(n) || n < min || n > max)
    throw new UsageError(`${name} must be a number from ${min} to ${max}, got "${value}"`)
  return n
}

export const out = (line: string) => process.stdout.write(`${line}\n`)
export const err = (line: string) => process.stderr.write(`${line}\n`)
