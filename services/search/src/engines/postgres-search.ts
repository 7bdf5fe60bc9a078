import type { PreparedPool } from '@wiki/db';
import { fold } from '../domain/fold.js';
import { type ParsedQuery, parseQuery } from '../domain/query.js';
import {
  escapeHtml,
  hasSelection,
  headlineHtml,
  markTerms,
  START_SEL,
  STOP_SEL,
  snippetOf,
  windowAround,
} from '../domain/snippet.js';
import { quoteLexeme } from '../domain/vector.js';
import { SEARCH_FIELDS, type SearchField, type SearchHit, type SearchPage, type SearchQuery } from './engine.js';

/** ts_rank's weights for D, C, B, A (content suffix, content word, title suffix, title word). */
const RANK_WEIGHTS = '{0.05,0.2,0.6,1.0}';

/**
 * Matches ranked per kind at most: the first this many title matches and the first this many
 * content matches (in index order) are ranked, plus every exact title. Each candidate costs a heap
 * row and a ts_rank (about 5 µs), so a query's cost stops growing with its matches here; the
 * tiers (exact title, title, content) hold as long as the title matches are fewer than this, and
 * a query of common words that matches more than this many documents has its content tier
 * ordered among the first ones found (docs/DECISIONS.md, "Fresh searches").
 */
const CANDIDATES = 200;

/**
 * The start of each returned text read for its snippet, which the service finds and marks: a
 * document's first match is nearly always this early. Where it is not (or the configuration
 * matched a stem the text does not spell), a second statement looks further, for those rows only.
 */
const SNIPPET_SCAN_CHARS = 8_192;

/** Only this much of a text goes through ts_headline (a long text's match is found by the fallback). */
const HEADLINE_CHARS = 65_536;
const HEADLINE_OPTIONS = `StartSel=${START_SEL}, StopSel=${STOP_SEL}, MaxWords=30, MinWords=12, MaxFragments=1, FragmentDelimiter=" … "`;

/**
 * The query as a tsquery: the service's own (folded units, suffixes, the last word as a prefix),
 * and with a configuration other than 'simple' also what websearch_to_tsquery makes of it there.
 * Its parameters come first in every statement ($1, and $2 and $3 with a configuration).
 */
function tsqueryOf(extraLexemes: boolean): { sql: string; next: number } {
  return extraLexemes
    ? { sql: '($1::tsquery || websearch_to_tsquery($2::regconfig, $3))', next: 4 }
    : { sql: '$1::tsquery', next: 2 };
}

/** A prefix is turned into the exact lexemes starting with it up to this many; beyond, it stays a prefix. */
const PREFIX_LEXEMES = 64;

/**
 * The query of the 'simple' configuration with its prefix (the last word, `'lexeme':*`, written
 * once: $4) replaced by the lexicon's lexemes from $2 (inclusive) to $3 (exclusive), ORed, when
 * there are 1 to PREFIX_LEXEMES of them (a short prefix of many words stays a prefix). GIN answers
 * an OR of exact lexemes by skipping through their postings beside the other words; a prefix it
 * first gathers whole into a bitmap, which for a common word costs more than the rest of the search.
 * Each lexeme is quoted as domain/vector.ts quoteLexeme does (backslashes and quotes doubled).
 */
const EXPANDED_QUERY = `
  expansion AS MATERIALIZED (
    SELECT count(*) AS n,
           string_agg('''' || replace(replace(l.lexeme, '\\', '\\\\'), '''', '''''') || '''', ' | ') AS list
    FROM (SELECT lexeme FROM search_lexemes WHERE lexeme >= $2 AND lexeme < $3
          ORDER BY lexeme LIMIT ${PREFIX_LEXEMES + 1}) l
  ),
  q AS MATERIALIZED (
    SELECT (CASE WHEN e.n BETWEEN 1 AND ${PREFIX_LEXEMES} THEN replace($1, $4, '(' || e.list || ')') ELSE $1 END)::tsquery AS q
    FROM expansion e
  ),`;

/**
 * The statements' parameters after the query's ($1.. in tsqueryOf / EXPANDED_QUERY order), named
 * so the page and count statements number them the same way from their own start.
 */
function paramsFrom(first: number, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((name, i) => [name, `$${first + i}`]));
}

/** The filters of ARCHITECTURE 5.20, in this order after the statement's own parameters. */
const FILTER_PARAMS = ['parent', 'author', 'after', 'before', 'inTitle', 'inContent', 'inComments', 'inAttachments'];

/**
 * The documents below the filter's parent, walked down parent_id as the index has it now (so a
 * subtree follows moves); UNION, not UNION ALL: a cycle left for a moment by moves applied out of
 * order ends the walk instead of running it forever. Empty without a parent.
 */
function belowCte(p: Record<string, string>): string {
  return `below AS (
    SELECT c.id FROM search_documents c
    WHERE ${p.parent}::uuid IS NOT NULL AND c.parent_id = ${p.parent}::uuid AND c.workspace_id = ${p.workspace}::uuid
    UNION
    SELECT c.id FROM search_documents c JOIN below b ON c.parent_id = b.id
  ),`;
}

/** The document filters on `d` (each off when its parameter is null). */
function documentFilters(p: Record<string, string>): string {
  return `(${p.parent}::uuid IS NULL OR d.id IN (SELECT id FROM below))
    AND (${p.author}::uuid IS NULL OR d.created_by = ${p.author}::uuid)
    AND (${p.after}::timestamptz IS NULL OR d.updated_at > ${p.after}::timestamptz)
    AND (${p.before}::timestamptz IS NULL OR d.updated_at < ${p.before}::timestamptz)`;
}

/** A matching passage `p` of the workspace, of a kind `in` allows. */
function passageOfKind(p: Record<string, string>): string {
  return `p.workspace_id = ${p.workspace}::uuid AND p.tsv @@ q.q
    AND ((p.kind = 'comment' AND ${p.inComments}::boolean) OR (p.kind = 'attachment' AND ${p.inAttachments}::boolean))`;
}

/** A passage of an allowed kind, of a shown document of the workspace that passes the filters. */
function passageMatch(p: Record<string, string>): string {
  return `${passageOfKind(p)}
    AND d.workspace_id = ${p.workspace}::uuid AND NOT d.archived AND ${documentFilters(p)}`;
}

/** True when no filter is given (`in` aside). */
function unfiltered(p: Record<string, string>): string {
  return `(${p.parent}::uuid IS NULL AND ${p.author}::uuid IS NULL AND ${p.after}::timestamptz IS NULL AND ${p.before}::timestamptz IS NULL)`;
}

/**
 * The documents of matching passages, without reading their documents when no filter is given:
 * a passage counts unless its document is archived (one hashed look-up in the workspace's few
 * archived documents); with filters, each passage's document is read to apply them.
 */
function passageDocuments(p: Record<string, string>, extra = 'true'): string {
  return `SELECT p.document_id FROM search_passages p CROSS JOIN q
        WHERE ${extra} AND ${unfiltered(p)} AND ${passageOfKind(p)}
          AND p.document_id NOT IN (SELECT a.id FROM search_documents a WHERE a.workspace_id = ${p.workspace}::uuid AND a.archived)
        UNION ALL
        SELECT p.document_id FROM search_passages p CROSS JOIN q JOIN search_documents d ON d.id = p.document_id
        WHERE ${extra} AND NOT ${unfiltered(p)} AND ${passageMatch(p)}`;
}

/**
 * A content match without the title (`in` without title): the content's lexemes are weighted C
 * and D (domain/vector.ts), so the vector filtered to those weights must match.
 */
const CONTENT_ONLY = `ts_filter(d.tsv, '{c,d}') @@ q.q`;

/** The query CTEs of a statement and the number of its first own parameter. */
function queryCtes(extraLexemes: boolean): { sql: string; next: number } {
  // With a configuration, its stems may extend a prefix too: the prefix stays one.
  return extraLexemes
    ? { sql: `q AS MATERIALIZED (SELECT ${tsqueryOf(true).sql} AS q),`, next: 4 }
    : { sql: EXPANDED_QUERY, next: 5 };
}

const PAGE_PARAMS = ['key', 'workspace', 'noExclusion', 'limit', 'scan', 'offset', 'candidates', ...FILTER_PARAMS];

/**
 * One statement, prepared once per connection (a generic plan: planning it cost as much as running
 * it): the candidates found through the indexes (every exact title, the first title matches, the
 * first content matches, the first comment and attachment matches), each document's best kept,
 * ranked (exact title, title match, content, then a passage; ts_rank within each) from the small
 * vectors kept in the rows, and for the returned page only, the start of each matched text. Exact
 * titles are checked against the whole vector too, and title matches when the query excludes a
 * word (the content may hold it); without an exclusion, a title match is a match. Each row also
 * says how many documents the candidates hold and whether a kind filled its LIMIT (then the total
 * is counted apart). A branch whose field `in` leaves out is a one-time filter: it never runs.
 */
function searchStatement(extraLexemes: boolean) {
  const q = queryCtes(extraLexemes);
  const p = paramsFrom(q.next, PAGE_PARAMS);
  const ranked = (source: number) => `d.id, ${p.inTitle}::boolean AND d.title_key = ${p.key} AS exact,
    ${p.inTitle}::boolean AND d.title_tsv @@ q.q AS in_title,
    ts_rank('${RANK_WEIGHTS}'::float4[], d.rank_tsv, q.q, 1) AS rank, ${source} AS source,
    NULL::uuid AS passage_id, NULL::text AS kind, NULL::uuid AS thread_id`;
  const shown = `d.workspace_id = ${p.workspace}::uuid AND NOT d.archived AND ${documentFilters(p)}`;
  // Passages may match and the documents fill the page: they are only counted.
  const onlyCounted = `(SELECT n FROM wanted) = 0 AND (${p.inComments}::boolean OR ${p.inAttachments}::boolean)`;
  return {
    name: `search_page_v5_${extraLexemes ? 'config' : 'simple'}`,
    text: `
      WITH RECURSIVE ${q.sql}
      ${belowCte(p)}
      documents AS MATERIALIZED (
        SELECT ${ranked(1)} FROM search_documents d, q
        WHERE ${p.inTitle}::boolean AND d.title_key = ${p.key} AND d.tsv @@ q.q AND ${shown}
        UNION ALL
        (SELECT ${ranked(2)} FROM search_documents d, q
         WHERE ${p.inTitle}::boolean AND d.title_tsv @@ q.q AND (${p.noExclusion}::boolean OR d.tsv @@ q.q) AND ${shown}
         LIMIT ${p.candidates}::int)
        UNION ALL
        (SELECT ${ranked(3)} FROM search_documents d, q
         WHERE ${p.inContent}::boolean AND d.tsv @@ q.q AND (${p.inTitle}::boolean OR ${CONTENT_ONLY}) AND ${shown}
         LIMIT ${p.candidates}::int)
      ),
      -- Passages rank below every document's own match: only as many as the page still lacks are
      -- looked at (none when the documents fill it), one more to tell whether there are others.
      wanted AS (
        SELECT CASE WHEN ${p.inComments}::boolean OR ${p.inAttachments}::boolean
                    THEN greatest(0, ${p.offset}::int + ${p.limit}::int - (SELECT count(DISTINCT id) FROM documents)::int)
                    ELSE 0 END AS n
      ),
      passages AS MATERIALIZED (
        SELECT p.document_id AS id, false AS exact, false AS in_title,
               ts_rank('${RANK_WEIGHTS}'::float4[], p.rank_tsv, q.q, 1) AS rank, 4 AS source, p.id AS passage_id, p.kind, p.thread_id
        FROM search_passages p CROSS JOIN q JOIN search_documents d ON d.id = p.document_id
        WHERE (SELECT n FROM wanted) > 0 AND ${passageMatch(p)}
        LIMIT (SELECT CASE WHEN n = 0 THEN 0 ELSE greatest(n, ${p.candidates}::int) + 1 END FROM wanted)
      ),
      -- With the page full of documents, the passages' documents only count towards the total, read
      -- without ranking; past the first ones, the total is counted apart.
      passage_documents AS MATERIALIZED (
        SELECT document_id AS id FROM (${passageDocuments(p, onlyCounted)}) found
        LIMIT ${p.candidates}::int + 1
      ),
      candidates AS (SELECT * FROM documents UNION ALL SELECT * FROM passages),
      best AS (
        SELECT DISTINCT ON (id) id, exact, in_title, source = 4 AS in_passage, rank, passage_id, kind, thread_id
        FROM candidates
        ORDER BY id, exact DESC, in_title DESC, source = 4, rank DESC, passage_id
      ),
      -- The candidates' documents are all the matches unless a kind stopped at its limit, or
      -- passages may match but were not all looked at: then the total is counted apart.
      tally AS (
        SELECT (SELECT count(*) FROM (SELECT id FROM best UNION SELECT id FROM passage_documents) m) AS matched,
               coalesce((SELECT max(n) FROM (SELECT count(*) AS n FROM documents WHERE source > 1 GROUP BY source) c), 0)
                 >= ${p.candidates}::int
               OR (SELECT count(*) FROM passages) >= (SELECT CASE WHEN n = 0 THEN 1 ELSE greatest(n, ${p.candidates}::int) + 1 END FROM wanted)
               OR (SELECT count(*) FROM passage_documents) > ${p.candidates}::int
                 AS filled
      ),
      page AS (
        SELECT * FROM best ORDER BY exact DESC, in_title DESC, in_passage, rank DESC, id
        OFFSET ${p.offset}::int LIMIT ${p.limit}::int
      )
      SELECT p.id, d.title, d.icon, d.parent_id, p.in_title, p.in_passage, p.passage_id, p.kind, p.thread_id,
             left(coalesce(s.text, d.plain_text), ${p.scan}::int) AS text,
             octet_length(coalesce(s.text, d.plain_text)) > ${p.scan}::int AS cut,
             t.matched::int AS matched, t.filled
      FROM tally t
      LEFT JOIN page p ON true
      LEFT JOIN search_documents d ON d.id = p.id
      LEFT JOIN search_passages s ON s.id = p.passage_id
      ORDER BY p.exact DESC, p.in_title DESC, p.in_passage, p.rank DESC, p.id`,
  };
}

const COUNT_PARAMS = ['workspace', ...FILTER_PARAMS];

/**
 * Every document that matches (what X-Total-Count says), when the candidates of the page statement
 * stopped at their LIMIT: the same conditions without the limits. A title match implies a vector
 * match (the vector holds the title's lexemes), so the vector's index leads every branch.
 */
function countStatement(extraLexemes: boolean) {
  const q = queryCtes(extraLexemes);
  const p = paramsFrom(q.next, COUNT_PARAMS);
  return {
    name: `search_count_v3_${extraLexemes ? 'config' : 'simple'}`,
    text: `
      WITH RECURSIVE ${q.sql}
      ${belowCte(p)}
      matches AS (
        SELECT d.id FROM search_documents d, q
        WHERE d.tsv @@ q.q AND d.workspace_id = ${p.workspace}::uuid AND NOT d.archived AND ${documentFilters(p)}
          AND ((${p.inTitle}::boolean AND d.title_tsv @@ q.q)
               OR (${p.inContent}::boolean AND (${p.inTitle}::boolean OR ${CONTENT_ONLY})))
        UNION
        ${passageDocuments(p)}
      )
      SELECT count(*)::int AS total FROM matches`,
  };
}

/**
 * The snippets the start of a text did not give: ts_headline where it marks a word (a stem of the
 * configuration), else the text around the first place a folded term occurs anywhere in the text.
 */
function fallbackStatement(extraLexemes: boolean) {
  const q = tsqueryOf(extraLexemes);
  const [ids, config, terms] = [0, 1, 2].map((i) => `$${q.next + i}`);
  return {
    name: `search_snippets_v1_${extraLexemes ? 'config' : 'simple'}`,
    text: `
      WITH q AS MATERIALIZED (SELECT ${q.sql} AS q)
      SELECT d.id, h.headline, w.around, w.at_char
      FROM search_documents d
      CROSS JOIN q
      CROSS JOIN LATERAL (
        -- OFFSET 0: computed once per row, not again where the fallback below reads it.
        SELECT ts_headline(${config}::regconfig, left(d.plain_text, ${HEADLINE_CHARS}), q.q, '${HEADLINE_OPTIONS}') AS headline OFFSET 0
      ) h
      LEFT JOIN LATERAL (
        SELECT substr(d.plain_text, greatest(1, min(s.at) - 120), 480) AS around,
               min(s.at) - greatest(1, min(s.at) - 120) AS at_char
        FROM (SELECT strpos(lower(unaccent(d.plain_text)), t) AS at FROM unnest(${terms}::text[]) t) s
        WHERE s.at > 0 AND strpos(h.headline, '${START_SEL}') = 0
        HAVING min(s.at) IS NOT NULL
      ) w ON true
      WHERE d.id = ANY(${ids}::uuid[])`,
  };
}

/** The lexicon's range of a prefix ($2, $3) and the prefix as the query writes it ($4); nulls without one. */
function prefixRange(prefix: string | null): Array<string | null> {
  if (prefix === null) return [null, null, null];
  // Byte order ("C"): every lexeme starting with the prefix sorts below it followed by the last code point.
  return [prefix, `${prefix}\u{10FFFF}`, `${quoteLexeme(prefix)}:*`];
}

interface PageRow {
  id: string | null;
  title: string;
  icon: string | null;
  parent_id: string | null;
  in_title: boolean;
  in_passage: boolean;
  passage_id: string | null;
  kind: 'comment' | 'attachment' | null;
  thread_id: string | null;
  text: string;
  cut: boolean;
  matched: number;
  filled: boolean;
}

interface FallbackRow {
  id: string;
  headline: string;
  around: string | null;
  at_char: number | null;
}

/** What a hit says of where it matched. */
function matchOf(row: PageRow): Pick<SearchHit, 'matchField' | 'commentThreadId' | 'attachmentId'> {
  if (row.in_title) return { matchField: 'title' };
  if (!row.in_passage) return { matchField: 'content' };
  return row.kind === 'comment'
    ? { matchField: 'comment', commentThreadId: row.thread_id as string }
    : { matchField: 'attachment', attachmentId: row.passage_id as string };
}

/** The filter values in FILTER_PARAMS order (null: the filter is off). */
function filterValues(query: SearchQuery): unknown[] {
  const fields = new Set<SearchField>(query.in ?? SEARCH_FIELDS);
  const time = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  return [
    query.parentId ?? null,
    query.authorId ?? null,
    time(query.updatedAfter),
    time(query.updatedBefore),
    fields.has('title'),
    fields.has('content'),
    fields.has('comments'),
    fields.has('attachments'),
  ];
}

/** The Postgres engine's search over its own prepared-statement pool. */
export function postgresSearch(reads: PreparedPool, tsConfig: string) {
  const extraLexemes = tsConfig !== 'simple';
  const page = searchStatement(extraLexemes);
  const count = countStatement(extraLexemes);
  const fallback = fallbackStatement(extraLexemes);
  const queryValues = (parsed: ParsedQuery, raw: string) =>
    extraLexemes ? [parsed.tsquery, tsConfig, fold(raw)] : [parsed.tsquery, ...prefixRange(parsed.prefix)];

  /** Snippets of the rows whose scanned start held no term: one statement for all of them. */
  async function fallbackSnippets(ids: string[], parsed: ParsedQuery, raw: string): Promise<Map<string, string>> {
    const snippets = new Map<string, string>();
    if (ids.length === 0) return snippets;
    const { rows } = await reads.query<FallbackRow>({
      ...fallback,
      values: [...(extraLexemes ? queryValues(parsed, raw) : [parsed.tsquery]), ids, tsConfig, parsed.terms],
    });
    for (const row of rows) {
      if (hasSelection(row.headline)) snippets.set(row.id, headlineHtml(row.headline));
      else if (row.around != null)
        snippets.set(row.id, markTerms(windowAround(row.around, row.at_char ?? 0), parsed.terms));
    }
    return snippets;
  }

  /** Every matching document, when the page's candidates stopped at their limit. */
  async function total(query: SearchQuery, parsed: ParsedQuery): Promise<number> {
    const { rows } = await reads.query<{ total: number }>({
      ...count,
      values: [...queryValues(parsed, query.query), query.workspaceId, ...filterValues(query)],
    });
    return rows[0]?.total ?? 0;
  }

  return async function search(query: SearchQuery): Promise<SearchPage> {
    const parsed = parseQuery(query.query);
    if (!parsed.tsquery) return { hits: [], total: 0 };
    const offset = query.offset ?? 0;
    const { rows: all } = await reads.query<PageRow>({
      ...page,
      values: [
        ...queryValues(parsed, query.query),
        parsed.key,
        query.workspaceId,
        !parsed.excludes,
        query.limit,
        SNIPPET_SCAN_CHARS,
        offset,
        // A page past the first candidates needs more of them.
        Math.max(CANDIDATES, offset + query.limit),
        ...filterValues(query),
      ],
    });
    // One row without a page when nothing is on it: it still tells the tally.
    const tally = all[0];
    const rows = all.filter((row): row is PageRow & { id: string } => row.id !== null);
    const found = new Map(rows.map((row) => [row.id, snippetOf(row.text, parsed.terms)]));
    // Looked for further only where a document's text goes on, or where the configuration may have matched a stem.
    const further = rows.filter(
      (row) => found.get(row.id) === null && !row.in_title && !row.in_passage && (row.cut || extraLexemes),
    );
    const [fallbacks, passages] = await Promise.all([
      fallbackSnippets(
        further.map((row) => row.id),
        parsed,
        query.query,
      ),
      passageSnippets(
        reads,
        rows.filter((row) => found.get(row.id) === null && row.in_passage && row.cut).map((row) => row.passage_id),
        parsed.terms,
      ),
    ]);
    const hits = rows.map((row): SearchHit => {
      const snippet =
        found.get(row.id) ??
        fallbacks.get(row.id) ??
        passages.get(row.passage_id ?? '') ??
        (row.in_title ? markTerms(row.title, parsed.terms) : escapeHtml(windowAround(row.text, 0)));
      return { id: row.id, title: row.title, icon: row.icon, parentId: row.parent_id, snippet, ...matchOf(row) };
    });
    const counted = tally && !tally.filled ? tally.matched : await total(query, parsed);
    // A page's own hits are matches: the total is never below them (a write between the statements).
    return { hits, total: hits.length > 0 ? Math.max(counted, offset + hits.length) : counted };
  };
}

/**
 * A passage longer than the scanned start whose match lies further: the text around the first
 * place a folded term occurs (attachments' texts run long; comments never reach this).
 */
const PASSAGE_WINDOW = {
  name: 'search_passage_window_v1',
  text: `
    SELECT s.id, substr(s.text, greatest(1, min(w.at) - 120), 480) AS around,
           min(w.at) - greatest(1, min(w.at) - 120) AS at_char
    FROM search_passages s
    CROSS JOIN LATERAL (SELECT strpos(lower(unaccent(s.text)), t) AS at FROM unnest($2::text[]) t) w
    WHERE s.id = ANY($1::uuid[]) AND w.at > 0
    GROUP BY s.id, s.text`,
};

async function passageSnippets(
  reads: PreparedPool,
  ids: Array<string | null>,
  terms: string[],
): Promise<Map<string, string>> {
  const snippets = new Map<string, string>();
  const list = ids.filter((id): id is string => id !== null);
  if (list.length === 0) return snippets;
  const { rows } = await reads.query<{ id: string; around: string; at_char: number }>({
    ...PASSAGE_WINDOW,
    values: [list, terms],
  });
  for (const row of rows) snippets.set(row.id, markTerms(windowAround(row.around, row.at_char), terms));
  return snippets;
}
