/** Deterministic randomness for the simulator: same site, seed and call → same data. */
export function hash32(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

export type Rng = {
  next(): number
  int(min: number, max: number): number
  pick<T>(items: readonly T[]): T
  hex(bytes: number): string
  bool(p?: number): boolean
}

export function createRng(seed: number | string): Rng {
  let a = typeof seed === 'number' ? seed >>> 0 : hash32(seed)
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
    hex: (bytes) => {
      let s = ''
      for (let i = 0; i < bytes; i++)
        s += Math.floor(next() * 256)
          .toString(16)
          .padStart(2, '0')
      return s
    },
    bool: (p = 0.5) => next() < p,
  }
}
