/**
 * The upstream's ranked tool search (reference §3.1 step 5), kept identical to its Python
 * and Worker implementations: the shared cases in test/fixtures/tool_search_cases.json pass.
 */
export const MAX_SEARCH_RESULTS = 20

const STOP_WORDS = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'for',
  'from',
  'how',
  'in',
  'is',
  'it',
  'of',
  'on',
  'or',
  'that',
  'the',
  'this',
  'to',
  'with',
])

export function searchTokens(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? []
}

/** Usable query terms: two characters or more, not a stop-word, each once, in order. */
export function queryTerms(search: string): string[] {
  return [...new Set(searchTokens(search).filter((t) => t.length >= 2 && !STOP_WORDS.has(t)))]
}

/** A term matches a word equal to it, or, from four characters on, a word it starts. */
function termMatches(term: string, word: string): boolean {
  return word === term || (term.length >= 4 && word.startsWith(term))
}

function hasPhrase(words: readonly string[], terms: readonly string[]): boolean {
  for (let start = 0; start < words.length; start++) {
    if (terms.every((term, k) => words[start + k] === term)) return true
  }
  return false
}

export function rankBySearch<T extends { name: string; description: string }>(
  tools: readonly T[],
  search: string,
): T[] {
  const terms = queryTerms(search)
  if (terms.length === 0) return []
  const needed = terms.length === 1 ? 1 : Math.max(2, Math.ceil(terms.length / 2))
  const scored = []
  for (const [position, tool] of tools.entries()) {
    const nameWords = searchTokens(tool.name)
    const descWords = searchTokens(tool.description)
    const allWords = [...nameWords, ...descWords]
    const matched = terms.filter((t) => allWords.some((w) => termMatches(t, w))).length
    if (matched < needed) continue
    const inName = terms.filter((t) => nameWords.some((w) => termMatches(t, w))).length
    const phrase = hasPhrase(nameWords, terms) || hasPhrase(descWords, terms) ? 1 : 0
    scored.push({ tool, position, phrase, inName, matched })
  }
  scored.sort(
    (a, b) =>
      b.phrase - a.phrase ||
      b.inName - a.inName ||
      b.matched - a.matched ||
      a.position - b.position,
  )
  return scored.slice(0, MAX_SEARCH_RESULTS).map((s) => s.tool)
}
