import { fold } from './fold.js';
import { titleKey, unitsOf } from './tokens.js';
import { quoteLexeme } from './vector.js';

/**
 * What a user typed, read with websearch syntax (`"a phrase"`, `-without`, `this or that`, the
 * rest ANDed), folded and cut into the units of tokens.ts, as a tsquery in Postgres' input form.
 * Nothing the user types reaches tsquery syntax: only letters and digits make lexemes, and each is
 * quoted. Common words stay (no stop words: `to be or not to be` is a query like any other). The
 * last word of the query also matches as a prefix (`offic` finds `office`).
 */
export interface ParsedQuery {
  /** null when the query has nothing to search for (empty, punctuation only, or only exclusions). */
  tsquery: string | null;
  /** The folded words and CJK runs to mark in snippets (positive terms only). */
  terms: string[];
  /** The query as a title's exact-match key (tokens.ts titleKey). */
  key: string;
  /** True when the tsquery excludes something (`-word`): a match of the title alone may then fail on the content. */
  excludes: boolean;
  /** The lexeme the tsquery matches as a prefix (`'lexeme':*`, written once), if any. */
  prefix: string | null;
}

interface Term {
  text: string;
  negated: boolean;
  phrase: boolean;
  /** Joined to the term before it by `or` instead of `and`. */
  or: boolean;
}

/** At most this many terms are searched; the rest of a pasted page is ignored. */
const MAX_TERMS = 32;

function readTerms(raw: string): Term[] {
  const terms: Term[] = [];
  const pattern = /(-?)"([^"]*)"?|(\S+)/g;
  let or = false;
  for (const match of raw.matchAll(pattern)) {
    if (match[3] !== undefined) {
      const word = match[3];
      if (word.toLowerCase() === 'or' && terms.length > 0) {
        or = true;
        continue;
      }
      const negated = word.startsWith('-') && word.length > 1;
      terms.push({ text: negated ? word.slice(1) : word, negated, phrase: false, or });
    } else {
      terms.push({ text: match[2] ?? '', negated: match[1] === '-', phrase: true, or });
    }
    or = false;
  }
  return terms;
}

/** One term as a tsquery: its units in a phrase (adjacent positions), the last one as prefix if asked. */
function termQuery(text: string, prefix: boolean): { query: string; prefixLexeme: string | null } | null {
  const units = unitsOf(fold(text));
  if (units.length === 0) return null;
  // A CJK run of two or more characters is found by its bigrams; its closing single character is
  // only there for one-character queries.
  const kept = units.filter(
    (u, i) =>
      !(
        u.kind === 'gram' &&
        [...u.lexeme].length === 1 &&
        i > 0 &&
        units[i - 1].kind === 'gram' &&
        units[i - 1].position === u.position - 1
      ),
  );
  let out = '';
  let previous = 0;
  kept.forEach((unit, i) => {
    const lexeme = quoteLexeme(unit.lexeme) + (prefix && i === kept.length - 1 ? ':*' : '');
    out = i === 0 ? lexeme : `${out} <${unit.position - previous}> ${lexeme}`;
    previous = unit.position;
  });
  return {
    query: kept.length > 1 ? `(${out})` : out,
    prefixLexeme: prefix ? kept[kept.length - 1].lexeme : null,
  };
}

export function parseQuery(raw: string): ParsedQuery {
  const terms = readTerms(raw).slice(0, MAX_TERMS);
  const positives = terms.filter((t) => !t.negated && unitsOf(fold(t.text)).length > 0);
  const last = positives[positives.length - 1];
  let query = '';
  let hasPositive = false;
  let excludes = false;
  let prefix: string | null = null;
  for (const term of terms) {
    const made = termQuery(term.text, term === last && !term.phrase);
    if (!made) continue;
    const part = made.query;
    prefix = made.prefixLexeme ?? prefix;
    const operand = term.negated ? `!${part}` : part;
    if (!term.negated) hasPositive = true;
    else excludes = true;
    query = query === '' ? operand : `${query} ${term.or ? '|' : '&'} ${operand}`;
  }
  const marks = positives.flatMap((t) => (fold(t.text).match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 0));
  return {
    tsquery: hasPositive ? query : null,
    terms: [...new Set(marks)],
    key: titleKey(raw.replace(/"/g, ' ')),
    excludes,
    prefix,
  };
}
