import { corpus } from './search-corpus.js';

/**
 * Queries the answer cache cannot help with: each one a set of 2–4 common words of the generated
 * corpus that no earlier query of the run used (in any order). "Common" is a word of four or more
 * letters found in at least 12 % of the documents: its combinations match about as many documents as
 * a real query of common words does (2–4 words, a few hundred matches in 10,000 documents; the
 * bench reports the measured spread).
 */

/** A word is common from this share of the documents on. */
const COMMON_SHARE = 0.12;
/** The documents the vocabulary is counted over (the corpus is the same in every fill). */
const COUNTED = 10_000;

/** The common words of the corpus, most frequent first. */
export function commonWords(): string[] {
  const make = corpus();
  const documentsWith = new Map<string, number>();
  for (let i = 0; i < COUNTED; i++) {
    const { title, text } = make(i);
    for (const word of new Set(`${title} ${text}`.toLowerCase().match(/[a-z]{4,}/g))) {
      documentsWith.set(word, (documentsWith.get(word) ?? 0) + 1);
    }
  }
  return [...documentsWith]
    .filter(([, n]) => n >= COMMON_SHARE * COUNTED)
    .sort((a, b) => b[1] - a[1])
    .map(([word]) => word);
}

/** A stream of queries, never the same set of words twice; throws when every set was used. */
export function freshQueries(words: readonly string[], seed = 1): () => string {
  let state = seed >>> 0;
  const random = () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 4_294_967_296;
  };
  const used = new Set<string>();
  const combinations = (n: number, k: number): number => (k === 0 ? 1 : (combinations(n - 1, k - 1) * n) / k);
  const limit = combinations(words.length, 2) + combinations(words.length, 3) + combinations(words.length, 4);
  return () => {
    // Drawing again after a used set: ends quickly while a good part of the sets is left.
    for (let attempt = 0; attempt < 1_000; attempt++) {
      const size = 2 + Math.floor(random() * 3);
      const picked = new Set<string>();
      while (picked.size < size) picked.add(words[Math.floor(random() * words.length)]);
      const key = [...picked].sort().join(' ');
      if (used.has(key)) continue;
      used.add(key);
      return [...picked].join(' ');
    }
    throw new Error(`fresh queries: no unused set of words found (${used.size} of ${limit} used)`);
  };
}
