import { fold } from './fold.js';
import { type Unit, unitsOf } from './tokens.js';

/**
 * Builds the tsvector of a document as Postgres' text input form (`'lexeme':1A,4C ...`), from the
 * units of tokens.ts plus every suffix of each word, so that any part of a word is found: a query
 * word `pages` equals the suffix `pages` of `subpages`, and the prefix match on a query's last
 * word finds any infix (`bpag` is a prefix of the suffix `bpages`).
 *
 * Weights rank where a match is: A a title word or title n-gram, B a suffix of a title word,
 * C a content word or n-gram, D a suffix of a content word.
 */

/** Suffixes are made for words up to this length (longer ones are ids, hashes, URLs). */
const SUFFIX_WORD_MAX = 32;
/**
 * Suffixes of at least 3 characters: a two-letter piece of a word is nearly in every document (a
 * posting per document in the index for little use); a two-letter query still finds whole words
 * and, as the last word, the words that begin with it.
 */
const SUFFIX_MIN = 3;
/** Postgres keeps positions up to 16383 (larger ones are stored as 16383). */
const MAX_POSITION = 16_383;
/** Positions kept per lexeme and weight: enough for ranking, and Postgres keeps at most 256. */
const MAX_POSITIONS = 16;
/**
 * A tsvector must stay under 1 MB. Suffixes stop being added past the first budget and new
 * words past the second (a text this varied is megabytes of distinct words; its start is indexed).
 */
const SUFFIX_BUDGET = 400_000;
const WORD_BUDGET = 800_000;

type Weight = 'A' | 'B' | 'C' | 'D';

class VectorBuilder {
  private readonly entries = new Map<string, Map<Weight, number[]>>();
  private bytes = 0;

  /** False when nothing was added (budget spent, or the lexeme has all the positions it keeps). */
  add(lexeme: string, position: number, weight: Weight, budget: number): boolean {
    let byWeight = this.entries.get(lexeme);
    if (!byWeight) {
      if (this.bytes > budget) return false;
      byWeight = new Map();
      this.entries.set(lexeme, byWeight);
      this.bytes += Buffer.byteLength(lexeme) + 8;
    }
    let positions = byWeight.get(weight);
    if (!positions) {
      positions = [];
      byWeight.set(weight, positions);
    }
    if (positions.length >= MAX_POSITIONS) return false;
    positions.push(Math.min(position, MAX_POSITION));
    this.bytes += 2;
    return true;
  }

  /** Adds the units; with `suffixWeight` null, no suffixes (the ranking vector). */
  addUnits(units: readonly Unit[], wordWeight: Weight, suffixWeight: Weight | null): void {
    for (const unit of units) {
      const added = this.add(unit.lexeme, unit.position, wordWeight, WORD_BUDGET);
      // A word seen often already has its suffixes with as many positions as are kept.
      if (!added || unit.kind !== 'word' || suffixWeight === null) continue;
      const word = unit.lexeme;
      // Suffixes by UTF-16 index where no character takes two units (nearly every word).
      const chars = /[\ud800-\udfff]/.test(word) ? [...word] : word;
      if (chars.length > SUFFIX_WORD_MAX) continue;
      for (let i = 1; i <= chars.length - SUFFIX_MIN; i++) {
        const suffix = typeof chars === 'string' ? chars.slice(i) : chars.slice(i).join('');
        this.add(suffix, unit.position, suffixWeight, SUFFIX_BUDGET);
      }
    }
  }

  /** The distinct lexemes added. */
  lexemes(): IterableIterator<string> {
    return this.entries.keys();
  }

  /** Postgres' input form; a weight D position is written without its letter. */
  toString(): string {
    const parts: string[] = [];
    for (const [lexeme, byWeight] of this.entries) {
      const positions: string[] = [];
      for (const [weight, list] of byWeight) {
        for (const p of list) positions.push(weight === 'D' ? `${p}` : `${p}${weight}`);
      }
      parts.push(`${quoteLexeme(lexeme)}:${positions.join(',')}`);
    }
    return parts.join(' ');
  }
}

/** A lexeme in tsvector / tsquery input: quoted, with quotes and backslashes doubled. */
export function quoteLexeme(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

export interface DocumentVectors {
  /** Title and content: what the GIN index searches. */
  vector: string;
  /** The title's part alone: tells a title match (ranked above content, matchField). */
  titleVector: string;
  /**
   * What ts_rank reads: whole words and n-grams of the title and of the start of the content, no
   * suffixes. Small enough to stay in the row (not TOASTed), so ranking thousands of matches
   * does not read and decompress thousands of full vectors. A match only inside words or past
   * the start ranks as 0 within its tier.
   */
  rankVector: string;
  /** The distinct lexemes of `vector` (the lexicon a query's last word is expanded from). */
  lexemes: string[];
}

/**
 * Content units in the ranking vector: few enough that a row, its text and full vector moved out of
 * line, stays under the 2 KB TOAST threshold, so ranking reads the vector from the row itself.
 */
const RANK_UNITS = 100;

export function documentVectors(title: string, text: string): DocumentVectors {
  const titleUnits = unitsOf(fold(title));
  const titleEnd = titleUnits.length ? titleUnits[titleUnits.length - 1].position : 0;
  // A gap keeps a phrase from running from the title into the content.
  const contentUnits = unitsOf(fold(text), titleEnd + 2);

  const titleOnly = new VectorBuilder();
  titleOnly.addUnits(titleUnits, 'A', 'B');
  const all = new VectorBuilder();
  all.addUnits(titleUnits, 'A', 'B');
  all.addUnits(contentUnits, 'C', 'D');
  const rank = new VectorBuilder();
  rank.addUnits(titleUnits, 'A', null);
  rank.addUnits(contentUnits.slice(0, RANK_UNITS), 'C', null);
  return {
    vector: all.toString(),
    titleVector: titleOnly.toString(),
    rankVector: rank.toString(),
    lexemes: [...all.lexemes()],
  };
}
