import { CJK_CLASS, fold } from './fold.js';

/**
 * Splits folded text into the units the index and the queries share. A run of letters and digits
 * is a word, except where it holds Chinese, Japanese or Korean characters: those parts are written
 * without spaces, so they become overlapping bigrams (`训练数据` → 训练 练数 数据, then the last
 * character alone so that one character still finds something). Each unit has a position; the
 * bigrams of a run take one position each, so a run of n characters spans n positions and a phrase
 * of bigrams finds exactly that run.
 */
export interface Unit {
  lexeme: string;
  position: number;
  kind: 'word' | 'gram';
}

/** Longer words are cut: a tsvector lexeme must stay small, and no one types 64 letters to find one. */
export const MAX_WORD = 64;

const RUN = /[\p{L}\p{N}\p{M}]+/gu;
const HAS_CJK = new RegExp(`[${CJK_CLASS}]`, 'u');
/** Splits a run into its CJK parts (kept, with the marks that follow them) and the rest. */
const CJK_PARTS = new RegExp(`([${CJK_CLASS}][${CJK_CLASS}\\p{M}]*)`, 'u');
const MARKS = /\p{M}/gu;

/** Units of an already folded text, positions counted from `start`. */
export function unitsOf(folded: string, start = 1): Unit[] {
  const units: Unit[] = [];
  let position = start;
  for (const match of folded.matchAll(RUN)) {
    const run = match[0];
    // Most runs are plain words: only a run holding CJK characters is split.
    const parts = HAS_CJK.test(run) ? run.split(CJK_PARTS).filter(Boolean) : [run];
    for (const part of parts) {
      if (HAS_CJK.test(part)) {
        const chars = [...part.replace(MARKS, '')];
        for (let i = 0; i < chars.length - 1; i++) {
          units.push({ lexeme: chars[i] + chars[i + 1], position: position + i, kind: 'gram' });
        }
        units.push({ lexeme: chars[chars.length - 1], position: position + chars.length - 1, kind: 'gram' });
        position += chars.length;
      } else {
        const word = part.replace(MARKS, '');
        if (!word) continue;
        units.push({
          lexeme: word.length > MAX_WORD ? [...word].slice(0, MAX_WORD).join('') : word,
          position,
          kind: 'word',
        });
        position += 1;
      }
    }
  }
  return units;
}

/** The title as an exact-match key: folded, words joined by one space. */
export function titleKey(title: string): string {
  return (fold(title).match(RUN) ?? []).join(' ');
}
