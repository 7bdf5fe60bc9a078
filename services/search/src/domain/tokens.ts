import { fold, isCjk } from './fold.js';

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

/** Units of an already folded text, positions counted from `start`. */
export function unitsOf(folded: string, start = 1): Unit[] {
  const units: Unit[] = [];
  let position = start;
  for (const match of folded.matchAll(RUN)) {
    for (const segment of segments(match[0])) {
      if (segment.cjk) {
        const chars = [...segment.text];
        for (let i = 0; i < chars.length - 1; i++) {
          units.push({ lexeme: chars[i] + chars[i + 1], position: position + i, kind: 'gram' });
        }
        units.push({ lexeme: chars[chars.length - 1], position: position + chars.length - 1, kind: 'gram' });
        position += chars.length;
      } else {
        units.push({ lexeme: [...segment.text].slice(0, MAX_WORD).join(''), position, kind: 'word' });
        position += 1;
      }
    }
  }
  return units;
}

/** Splits a run into parts that are all CJK or all not (marks stay with the part before them). */
function segments(run: string): Array<{ text: string; cjk: boolean }> {
  const parts: Array<{ text: string; cjk: boolean }> = [];
  for (const ch of run) {
    const cjk = isCjk(ch);
    const last = parts[parts.length - 1];
    if (last && (last.cjk === cjk || /\p{M}/u.test(ch))) last.text += ch;
    else parts.push({ text: ch, cjk });
  }
  return parts.map((p) => ({ text: p.text.replace(/\p{M}/gu, '') || p.text, cjk: p.cjk }));
}

/** The title as an exact-match key: folded, words joined by one space. */
export function titleKey(title: string): string {
  return (fold(title).match(RUN) ?? []).join(' ');
}
