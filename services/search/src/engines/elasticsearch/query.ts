import type { estypes } from '@elastic/elasticsearch';
import { type IdPage, SEARCH_FIELDS, type SearchQuery } from '../engine.js';

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
  // A comment's or an attachment's text: below any match in the document itself (a word and its
  // parts together, 15, plus BM25 stay under a part of a content word).
  passageWord: 10,
  passagePart: 5,
  bm25: 0.1,
} as const;

/** A text field a query item may match in, with its tiers. */
interface TieredField {
  name: string;
  word: number;
  part: number;
}

const TITLE: TieredField = { name: 'title', word: TIERS.titleWord, part: TIERS.titlePart };
const CONTENT: TieredField = { name: 'plainText', word: TIERS.contentWord, part: TIERS.contentPart };
const PASSAGE: TieredField = { name: 'text', word: TIERS.passageWord, part: TIERS.passagePart };

type Clause = estypes.QueryDslQueryContainer;

function tier(match: Clause, boost: number): Clause {
  return { constant_score: { filter: match, boost } };
}

function itemQuery(item: QueryItem, fields: readonly TieredField[]): Clause {
  if (item.phrase) {
    const phrase = (field: string, boost?: number) => ({
      match_phrase: { [field]: boost === undefined ? { query: item.text } : { query: item.text, boost } },
    });
    return {
      bool: {
        should: [...fields.map((f) => tier(phrase(f.name), f.word)), ...fields.map((f) => phrase(f.name, TIERS.bm25))],
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
        ...fields.flatMap((f) => [tier(words(f.name), f.word), tier(words(`${f.name}.ngram`), f.part)]),
        ...fields.map((f) => ({
          match: { [f.name]: { query: item.text, operator: 'and' as const, boost: TIERS.bm25 } },
        })),
      ],
      minimum_should_match: 1,
    },
  };
}

/** Every group must match in the fields; inside a group any item is enough. */
function groupsQuery(parsed: ParsedQuery, fields: readonly TieredField[]): Clause[] {
  return parsed.groups.map((group) =>
    group.length === 1
      ? itemQuery(group[0], fields)
      : { bool: { should: group.map((item) => itemQuery(item, fields)), minimum_should_match: 1 } },
  );
}

function exclusionQuery(item: QueryItem, fields: readonly string[]): Clause {
  // Excluding by parts of words would drop far too much (`-pages` would exclude `Subpages`):
  // whole words and phrases only.
  const match = item.phrase ? 'match_phrase' : 'match';
  return {
    bool: {
      should: fields.map((field) => ({ [match]: { [field]: { query: item.text } } })),
      minimum_should_match: 1,
    },
  };
}

/** Characters of body text analysed for a highlight (ES refuses longer texts unless capped). */
export const HIGHLIGHT_MAX_ANALYZED = 500_000;
/** Length of a content snippet, in characters of the source text. */
export const SNIPPET_CHARS = 160;

const highlightBase = {
  type: 'unified',
  pre_tags: ['<mark>'],
  post_tags: ['</mark>'],
  // Escapes the source text (`<`, `&`, quotes) but not the tags above: the snippet is safe HTML.
  encoder: 'html',
  max_analyzed_offset: HIGHLIGHT_MAX_ANALYZED,
} as const satisfies Omit<estypes.SearchHighlight, 'fields'>;

/** The best passage of a text field; its beginning when the field did not match. */
const passageOf = (field: string): estypes.SearchHighlightField => ({
  number_of_fragments: 1,
  fragment_size: SNIPPET_CHARS,
  no_match_size: SNIPPET_CHARS,
  matched_fields: [field, `${field}.ngram`],
});

const documentHighlights = {
  // The whole title, marked, when the title matched (by words or by parts of words).
  title: { number_of_fragments: 0, matched_fields: ['title', 'title.ngram'] },
  // The best passage of the text; its beginning when only the title matched.
  plainText: passageOf('plainText'),
} satisfies Record<string, estypes.SearchHighlightField>;

export const highlight: estypes.SearchHighlight = { ...highlightBase, fields: documentHighlights };

/** The name of the query that matches a document by its own title or text (`matched_queries`). */
export const DOCUMENT_MATCH = 'document';
/** The inner hits that carry a document's best passage. */
export const BEST_PASSAGE = 'passage';

/** The passage kinds each `in` value looks in. */
const PASSAGE_KINDS = { comments: 'comment', attachments: 'attachment' } as const;

/** The filters of ARCHITECTURE 5.20 on the documents (a passage is found only through them). */
function documentFilters(query: SearchQuery, below: readonly string[] | undefined): Clause[] {
  const filter: Clause[] = [{ term: { workspaceId: query.workspaceId } }, { term: { archived: false } }];
  if (below !== undefined) filter.push({ terms: { id: [...below] } });
  if (query.authorId !== undefined) filter.push({ term: { createdBy: query.authorId } });
  if (query.updatedAfter !== undefined || query.updatedBefore !== undefined) {
    // Both bounds exclusive, in ms like the indexed values.
    const range: estypes.QueryDslDateRangeQuery = { format: 'epoch_millis' };
    if (query.updatedAfter !== undefined) range.gt = String(query.updatedAfter);
    if (query.updatedBefore !== undefined) range.lt = String(query.updatedBefore);
    filter.push({ range: { updatedAt: range } });
  }
  return filter;
}

/**
 * The `_search` request of a query, or null when it holds nothing to look for. `below` is the
 * subtree of `parentId`, already resolved (subtreeLevelRequest); absent without one.
 *
 * One hit per document, so paging (`from`) and the total (`track_total_hits`) count documents: a
 * document matches by its own title or text (named DOCUMENT_MATCH), or by a comment or attachment
 * text through `has_child` (its best passage and that passage's highlight come back as inner hits).
 * The filters sit on the documents, so a passage is found only while its document is shown.
 */
export function searchRequest(
  index: string,
  query: SearchQuery,
  below?: readonly string[],
): estypes.SearchRequest | null {
  const parsed = parseQuery(query.query);
  if (parsed.groups.length === 0) return null;
  const where = new Set(query.in ?? SEARCH_FIELDS);
  const fields = [where.has('title') ? TITLE : null, where.has('content') ? CONTENT : null].filter(
    (field): field is TieredField => field !== null,
  );
  const kinds = (['comments', 'attachments'] as const).filter((key) => where.has(key)).map((key) => PASSAGE_KINDS[key]);
  const branches: Clause[] = [];
  if (fields.length > 0) {
    branches.push({
      bool: {
        must: groupsQuery(parsed, fields),
        must_not: parsed.excluded.map((item) => exclusionQuery(item, ['title', 'plainText'])),
        _name: DOCUMENT_MATCH,
      },
    });
  }
  if (kinds.length > 0) {
    branches.push({
      has_child: {
        type: 'passage',
        // The document scores as its best passage.
        score_mode: 'max',
        query: {
          bool: {
            filter: [{ terms: { passageKind: kinds } }],
            must: groupsQuery(parsed, [PASSAGE]),
            must_not: parsed.excluded.map((item) => exclusionQuery(item, ['text'])),
          },
        },
        inner_hits: {
          name: BEST_PASSAGE,
          size: 1,
          _source: ['id', 'passageKind', 'threadId'],
          highlight: { ...highlightBase, fields: { text: passageOf('text') } },
        },
      },
    });
  }
  const fieldsHighlight: Record<string, estypes.SearchHighlightField> = {};
  if (where.has('title')) fieldsHighlight.title = documentHighlights.title;
  if (where.has('content')) fieldsHighlight.plainText = documentHighlights.plainText;
  return {
    index,
    from: query.offset ?? 0,
    size: query.limit,
    // Exact: X-Total-Count says every matching document.
    track_total_hits: true,
    _source: ['id', 'title', 'icon', 'parentId'],
    query: {
      bool: {
        filter: documentFilters(query, below),
        must: branches.length === 1 ? branches : [{ bool: { should: branches, minimum_should_match: 1 } }],
        // A title that is exactly the query (case and accents folded) comes first.
        should: where.has('title')
          ? [tier({ match: { 'title.exact': { query: query.query.trim() } } }, TIERS.exactTitle)]
          : [],
      },
    },
    // Equal scores in id order, so pages neither repeat nor skip a document.
    sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }],
    ...(fields.length > 0
      ? {
          highlight: {
            ...highlightBase,
            fields: fieldsHighlight,
            // The document's own match only: the passages are highlighted in their inner hits.
            highlight_query: { bool: { must: groupsQuery(parsed, fields) } },
          },
        }
      : {}),
  };
}

/** Documents one subtree walk reads at most (the terms filter and max_result_window allow 10,000). */
export const SUBTREE_MAX_DOCUMENTS = 10_000;
/** Levels one subtree walk descends at most. */
export const SUBTREE_MAX_DEPTH = 64;

/**
 * One level of the walk down a subtree (Elasticsearch has no recursive query): the documents whose
 * parent is one of `parents`, archived ones too (their children are shown), tombstones not.
 */
export function subtreeLevelRequest(
  index: string,
  workspaceId: string,
  parents: readonly string[],
  size: number,
): estypes.SearchRequest {
  return {
    index,
    size,
    track_total_hits: false,
    _source: false,
    query: {
      bool: {
        filter: [{ term: { workspaceId } }, { terms: { parentId: [...parents] } }],
        must_not: [{ term: { removed: true } }],
      },
    },
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
        // Passages are listed apart (listPassageIds).
        must_not: [{ term: { removed: true } }, { exists: { field: 'passageKind' } }],
      },
    },
    sort: [{ id: 'asc' }],
    ...(page.after !== undefined ? { search_after: [page.after] } : {}),
  };
}
