/** Exponential backoff with ±20 % jitter, so that many gateways do not retry in lock-step. */
export function backoffDelay(
  attempt: number,
  baseMs = 500,
  maxMs = 30_000,
  random = Math.random,
): number {
  const raw = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt))
  return Math.round(raw * (0.8 + 0.4 * random()))
}

/** A promise that resolves after `ms`, or rejects with the signal's reason when aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
