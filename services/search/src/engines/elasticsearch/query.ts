import type { estypes } from '@elastic/elasticsearch';
import type { IdPage, SearchQuery } from '../engine.js';

/**
 * What the user typed, read with the websearch syntax the Postgres engine uses
 * (`websearch_to_tsquery`): words are all required, `"quoted words"` are a phrase, `-word` or
 * `-"a phrase"` excludes, and `or` between two items makes either enough. Any other character is
 * left to the analyzer (it drops punctuation), so no input is a syntax error: `&|!:*()` or a lone
 * `"` is just text. Only `match`/`match_phrase` queries are built, never `query_string`.
 */
export interface QueryItem {
  text: string;
  phrase: boolean;
}

export interface ParsedQuery {
  /** Every group must match; inside a group any item is enough (`a or b`). */
  groups: QueryItem[][];
  excluded: QueryItem[];
}

/** Items beyond this many are dropped: they would only slow the query (and hit max_clause_count). */
export const MAX_QUERY_ITEMS = 32;

const WORDLIKE = /[\p{L}\p{N}]/u;

interface Token {
  item: QueryItem;
  negated: boolean;
  /** The bare word `or` (only an operator when it stands between two items). */
  or: boolean;
}

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    if (/\s/.test(input[i])) {
      i += 1;
      continue;
    }
    let negated = false;
    if (input[i] === '-' && i + 1 < input.length && !/\s/.test(input[i + 1])) {
      negated = true;
      i += 1;
    }
    if (input[i] === '"') {
      const end = input.indexOf('"', i + 1);
      const stop = end === -1 ? input.length : end;
      const text = input.slice(i + 1, stop).trim();
      i = stop + 1;
      if (WORDLIKE.test(text)) tokens.push({ item: { text, phrase: true }, negated, or: false });
      continue;
    }
    let end = i;
    while (end < input.length && !/\s/.test(input[end]) && input[end] !== '"') end += 1;
    const text = input.slice(i, end);
    i = end;
    // Punctuation alone (`&|!`, a lone `-`) leaves the analyzer nothing to look for.
    if (!WORDLIKE.test(text)) continue;
    tokens.push({ item: { text, phrase: false }, negated, or: !negated && text.toLowerCase() === 'or' });
  }
  return tokens;
}

export function parseQuery(input: string): ParsedQuery {
  const tokens = tokenize(input).slice(0, MAX_QUERY_ITEMS);
  const groups: QueryItem[][] = [];
  const excluded: QueryItem[] = [];
  let joinNext = false;
  for (const [index, token] of tokens.entries()) {
    const between = index > 0 && index < tokens.length - 1 && groups.length > 0;
    if (token.or && between && !joinNext) {
      joinNext = true;
      continue;
    }
    if (token.negated) {
      excluded.push(token.item);
      joinNext = false;
      continue;
    }
    if (joinNext) groups[groups.length - 1].push(token.item);
    else groups.push([token.item]);
    joinNext = false;
  }
  return { groups, excluded };
}

/**
 * Ranking in tiers, as users expect and the contract checks: an exact title first, then title
 * words, then parts of title words, then content words, then parts of content words. Each tier is
 * a constant score (BM25 alone cannot promise that one title word beats a word repeated all over
 * a text, and trigram matches add up one score per gram); a small share of BM25 orders documents
 * within a tier. Tiers are 20 apart or more and BM25 counts 0.1, so only a raw BM25 score above
 * 200 for one word could cross a tier (a term scores at most about 2.2 × idf, idf < 15 here).
 */
export const TIERS = {
  exactTitle: 1000,
  titleWord: 200,
  titlePart: 100,
  contentWord: 40,
  contentPart: 20,
  bm25: 0.1,
} as const;

type Clause = estypes.QueryDslQueryContainer;

function tier(match: Clause, boost: number): Clause {
  return { constant_score: { filter: match, boost } };
}

function itemQuery(item: QueryItem): Clause {
  if (item.phrase) {
    const title = { match_phrase: { title: { query: item.text } } };
    const content = { match_phrase: { plainText: { query: item.text } } };
    return {
      bool: {
        should: [
          tier(title, TIERS.titleWord),
          tier(content, TIERS.contentWord),
          { match_phrase: { title: { query: item.text, boost: TIERS.bm25 } } },
          { match_phrase: { plainText: { query: item.text, boost: TIERS.bm25 } } },
        ],
        minimum_should_match: 1,
      },
    };
  }
  // `operator: and`: a word the analyzer cuts into several terms (CJK bigrams, trigrams, `e-mail`)
  // needs all of them. A word shorter than 3 characters has no trigrams: main fields only.
  const words = (field: string) => ({ match: { [field]: { query: item.text, operator: 'and' as const } } });
  return {
    bool: {
      should: [
        tier(words('title'), TIERS.titleWord),
        tier(words('title.ngram'), TIERS.titlePart),
        tier(words('plainText'), TIERS.contentWord),
        tier(words('plainText.ngram'), TIERS.contentPart),
        { match: { title: { query: item.text, operator: 'and', boost: TIERS.bm25 } } },
        { match: { plainText: { query: item.text, operator: 'and', boost: TIERS.bm25 } } },
      ],
      minimum_should_match: 1,
    },
  };
}

function exclusionQuery(item: QueryItem): Clause {
  // Excluding by parts of words would drop far too much (`-pages` would exclude `Subpages`):
  // whole words and phrases only.
  const match = item.phrase ? 'match_phrase' : 'match';
  return {
    bool: {
      should: [{ [match]: { title: { query: item.text } } }, { [match]: { plainText: { query: item.text } } }],
      minimum_should_match: 1,
    },
  };
}

/** Characters of body text analysed for a highlight (ES refuses longer texts unless capped). */
export const HIGHLIGHT_MAX_ANALYZED = 500_000;
/** Length of a content snippet, in characters of the source text. */
export const SNIPPET_CHARS = 160;

export const highlight: estypes.SearchHighlight = {
  type: 'unified',
  pre_tags: ['<mark>'],
  post_tags: ['</mark>'],
  // Escapes the source text (`<`, `&`, quotes) but not the tags above: the snippet is safe HTML.
  encoder: 'html',
  max_analyzed_offset: HIGHLIGHT_MAX_ANALYZED,
  fields: {
    // The whole title, marked, when the title matched (by words or by parts of words).
    title: { number_of_fragments: 0, matched_fields: ['title', 'title.ngram'] },
    // The best passage of the text; its beginning when only the title matched.
    plainText: {
      number_of_fragments: 1,
      fragment_size: SNIPPET_CHARS,
      no_match_size: SNIPPET_CHARS,
      matched_fields: ['plainText', 'plainText.ngram'],
    },
  },
};

/** The `_search` request of a query, or null when it holds nothing to look for. */
export function searchRequest(index: string, query: SearchQuery): estypes.SearchRequest | null {
  const parsed = parseQuery(query.query);
  if (parsed.groups.length === 0) return null;
  const must = parsed.groups.map((group) =>
    group.length === 1 ? itemQuery(group[0]) : { bool: { should: group.map(itemQuery), minimum_should_match: 1 } },
  );
  return {
    index,
    size: query.limit,
    track_total_hits: false,
    _source: ['id', 'title', 'icon', 'parentId'],
    query: {
      bool: {
        filter: [{ term: { workspaceId: query.workspaceId } }, { term: { archived: false } }],
        must,
        must_not: parsed.excluded.map(exclusionQuery),
        // A title that is exactly the query (case and accents folded) comes first.
        should: [tier({ match: { 'title.exact': { query: query.query.trim() } } }, TIERS.exactTitle)],
      },
    },
    highlight,
  };
}

/**
 * A page of the ids the index holds, ascending: sorted on the `id` keyword, whose byte order is
 * the text order of lowercase uuids (the order Postgres sorts a uuid column in), and continued
 * with `search_after` instead of `from`, so deep pages cost no more than the first.
 */
export function idPageRequest(index: string, page: IdPage): estypes.SearchRequest {
  return {
    index,
    size: page.limit,
    track_total_hits: false,
    _source: false,
    query: {
      bool: {
        filter: page.workspaceId ? [{ term: { workspaceId: page.workspaceId } }] : [],
        must_not: [{ term: { removed: true } }],
      },
    },
    sort: [{ id: 'asc' }],
    ...(page.after !== undefined ? { search_after: [page.after] } : {}),
  };
}
