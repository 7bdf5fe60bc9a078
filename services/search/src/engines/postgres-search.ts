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
import type { SearchHit, SearchQuery } from './engine.js';

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
 * One statement, prepared once per connection (a generic plan: planning it cost as much as running
 * it): the candidates found through the indexes (every exact title, the first title matches, the
 * first content matches), ranked from the small vectors kept in the row (exact title, title
 * match, then ts_rank), and for the returned page only, the start of each text. Exact titles are
 * checked against the whole vector too, and title matches when the query excludes a word (the
 * content may hold it); without an exclusion, a title match is a match.
 */
function searchStatement(extraLexemes: boolean) {
  // With a configuration, its stems may extend a prefix too: the prefix stays one.
  const q = extraLexemes
    ? { sql: `q AS MATERIALIZED (SELECT ${tsqueryOf(true).sql} AS q),`, next: 4 }
    : { sql: EXPANDED_QUERY, next: 5 };
  const [key, workspace, noExclusion, limit, scan] = [0, 1, 2, 3, 4].map((i) => `$${q.next + i}`);
  const ranked = `d.id, d.title_key = ${key} AS exact, d.title_tsv @@ q.q AS in_title,
    ts_rank('${RANK_WEIGHTS}'::float4[], d.rank_tsv, q.q, 1) AS rank`;
  return {
    name: `search_page_v2_${extraLexemes ? 'config' : 'simple'}`,
    text: `
      WITH ${q.sql}
      candidates AS (
        SELECT ${ranked} FROM search_documents d, q
        WHERE d.workspace_id = ${workspace} AND d.title_key = ${key} AND NOT d.archived AND d.tsv @@ q.q
        UNION ALL
        (SELECT ${ranked} FROM search_documents d, q
         WHERE d.workspace_id = ${workspace} AND NOT d.archived AND d.title_tsv @@ q.q
           AND (${noExclusion}::boolean OR d.tsv @@ q.q)
         LIMIT ${CANDIDATES})
        UNION ALL
        (SELECT ${ranked} FROM search_documents d, q
         WHERE d.workspace_id = ${workspace} AND NOT d.archived AND d.tsv @@ q.q
         LIMIT ${CANDIDATES})
      ),
      page AS (
        SELECT DISTINCT ON (exact, in_title, rank, id) * FROM candidates
        ORDER BY exact DESC, in_title DESC, rank DESC, id
        LIMIT ${limit}::int
      )
      SELECT p.id, d.title, d.icon, d.parent_id, p.in_title, left(d.plain_text, ${scan}::int) AS text,
             octet_length(d.plain_text) > ${scan}::int AS cut
      FROM page p JOIN search_documents d ON d.id = p.id
      ORDER BY p.exact DESC, p.in_title DESC, p.rank DESC, p.id`,
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
  id: string;
  title: string;
  icon: string | null;
  parent_id: string | null;
  in_title: boolean;
  text: string;
  cut: boolean;
}

interface FallbackRow {
  id: string;
  headline: string;
  around: string | null;
  at_char: number | null;
}

/** The Postgres engine's search over its own prepared-statement pool. */
export function postgresSearch(reads: PreparedPool, tsConfig: string) {
  const extraLexemes = tsConfig !== 'simple';
  const page = searchStatement(extraLexemes);
  const fallback = fallbackStatement(extraLexemes);
  const queryValues = (parsed: ParsedQuery, raw: string) =>
    extraLexemes ? [parsed.tsquery, tsConfig, fold(raw)] : [parsed.tsquery];

  /** Snippets of the rows whose scanned start held no term: one statement for all of them. */
  async function fallbackSnippets(ids: string[], parsed: ParsedQuery, raw: string): Promise<Map<string, string>> {
    const snippets = new Map<string, string>();
    if (ids.length === 0) return snippets;
    const { rows } = await reads.query<FallbackRow>({
      ...fallback,
      values: [...queryValues(parsed, raw), ids, tsConfig, parsed.terms],
    });
    for (const row of rows) {
      if (hasSelection(row.headline)) snippets.set(row.id, headlineHtml(row.headline));
      else if (row.around != null)
        snippets.set(row.id, markTerms(windowAround(row.around, row.at_char ?? 0), parsed.terms));
    }
    return snippets;
  }

  return async function search(query: SearchQuery): Promise<SearchHit[]> {
    const parsed = parseQuery(query.query);
    if (!parsed.tsquery) return [];
    const { rows } = await reads.query<PageRow>({
      ...page,
      values: [
        ...(extraLexemes ? queryValues(parsed, query.query) : [parsed.tsquery, ...prefixRange(parsed.prefix)]),
        parsed.key,
        query.workspaceId,
        !parsed.excludes,
        query.limit,
        SNIPPET_SCAN_CHARS,
      ],
    });
    const found = new Map(rows.map((row) => [row.id, snippetOf(row.text, parsed.terms)]));
    // Looked for further only where the text goes on, or where the configuration may have matched a stem.
    const further = rows.filter((row) => found.get(row.id) === null && !row.in_title && (row.cut || extraLexemes));
    const fallbacks = await fallbackSnippets(
      further.map((row) => row.id),
      parsed,
      query.query,
    );
    return rows.map((row) => {
      const snippet =
        found.get(row.id) ??
        fallbacks.get(row.id) ??
        (row.in_title ? markTerms(row.title, parsed.terms) : escapeHtml(windowAround(row.text, 0)));
      return {
        id: row.id,
        title: row.title,
        icon: row.icon,
        parentId: row.parent_id,
        snippet,
        matchField: row.in_title ? 'title' : 'content',
      };
    });
  };
}
