import { createDatabasePool, sql } from '@wiki/db';
import type { RequestSpec } from 'autocannon';
import { parseQuery } from '../../services/search/src/domain/query.js';
import { type CpuMeter, type LoadResult, load } from './load.js';
import { fillSearchIndex, type IndexingResult, type LagResult, measureLag } from './search.js';
import { commonWords, freshQueries } from './search-queries.js';

/**
 * The search rows (issue 29 point 1): over a workspace of `freshDocuments` generated documents
 * (the only ones in the index then), a search whose every request is a query not asked before
 * (the answer cache cannot help) beside ten queries asked again and again, and new queries with
 * the filters of issue 30 (filterParams below), at 10 and 50 connections; then, with a workspace
 * of `documents` added, new queries in it one at a time (p95); each beside a hello-world at the
 * same connections, run just before it. Then the time from a write to its being searchable.
 */
export interface SearchBenchOptions {
  gatewayUrl: string;
  helloUrl: string;
  token: string;
  /** Makes a workspace through the gateway and answers its id. */
  createWorkspace(name: string): Promise<string>;
  searchDatabaseUrl: string;
  /** Documents of the workspace the rows at 10 and 50 connections search (issue 29: 10,000). */
  freshDocuments: number;
  /** Documents of the workspace searched one query at a time (issue 12 point 8, issue 29: 100,000). */
  documents: number;
  durationS: number;
  lagRate: number;
  lagDurationS: number;
  cpuMeters: CpuMeter[];
  log(message: string): void;
}

export interface Spread {
  p10: number;
  p50: number;
  p90: number;
  mean: number;
}

/**
 * Documents a sample of the new queries matches: by title or text (the spread itself, as before
 * passages existed), by a comment, by an attachment text, and what the filtered row keeps of them.
 */
export interface MatchSpread extends Spread {
  queries: number;
  viaComments: Spread;
  viaAttachments: Spread;
  /** Any field, the search's own answer (the documents above and the passages' together). */
  anyField: Spread;
  /** The filtered row's matches (filterParams: the last half-year, titles, texts and comments). */
  filtered: Spread;
}

export interface SearchBenchResult {
  indexing: IndexingResult[];
  /** The common words the new queries are made of. */
  vocabulary: string[];
  /** How many documents a sample of the new queries matches, per workspace size. */
  matches: Record<string, MatchSpread>;
  /** The filtered row's parameters as a reader would type them (updatedAfter a half-year back). */
  filters: string;
  scenarios: LoadResult[];
  lag: LagResult;
}

export const FRESH = 'search, every query new';
export const REPEATED = 'search, ten queries repeated';
export const FILTERED = 'search, every query new, with filters';
/** The row at 1 connection over the large workspace. */
export const freshOver = (documents: number) => `${FRESH}, ${documents.toLocaleString('en')} documents`;

/**
 * The filtered row's filters: what a reader narrowing a search to recent discussions would ask,
 * documents updated within the last half-year, matched in titles, texts and comments (attachment
 * texts left out). With updatedAt spread evenly over the year, about half the documents pass the
 * date; the filter runs inside each branch of the engine's statement, the passages' included.
 */
const HALF_YEAR_MS = 182 * 24 * 3_600_000;
const FILTER_FIELDS = 'title,content,comments';
function filterParams(now: number): { query: string; after: number } {
  const after = now - HALF_YEAR_MS;
  return { query: `&updatedAfter=${new Date(after).toISOString()}&in=${FILTER_FIELDS}`, after };
}

const spread = (counts: number[]): Spread => {
  const sorted = [...counts].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  return {
    p10: at(0.1),
    p50: at(0.5),
    p90: at(0.9),
    mean: Math.round(sorted.reduce((a, b) => a + b, 0) / sorted.length),
  };
};

/** Matches of `sample` queries of the stream's kind (another stream: none of them is sent). */
async function matchSpread(
  databaseUrl: string,
  workspaceId: string,
  words: string[],
  updatedAfter: number,
  sample = 100,
): Promise<MatchSpread> {
  const pool = await createDatabasePool(databaseUrl, { maximumPoolSize: 1 });
  try {
    const next = freshQueries(words, 7_777);
    const counts: Record<'documents' | 'comments' | 'attachments' | 'any' | 'filtered', number[]> = {
      documents: [],
      comments: [],
      attachments: [],
      any: [],
      filtered: [],
    };
    const after = new Date(updatedAfter).toISOString();
    for (let i = 0; i < sample; i++) {
      const tsquery = parseQuery(next()).tsquery as string;
      const row = await pool.one(sql.unsafe`
        WITH docs AS (
          SELECT id, updated_at FROM search_documents
          WHERE workspace_id = ${workspaceId} AND NOT archived AND tsv @@ ${tsquery}::tsquery
        ), passages AS (
          SELECT DISTINCT p.document_id AS id, p.kind, d.updated_at
          FROM search_passages p JOIN search_documents d ON d.id = p.document_id
          WHERE p.workspace_id = ${workspaceId} AND NOT d.archived AND p.tsv @@ ${tsquery}::tsquery
        )
        SELECT (SELECT count(*) FROM docs)::int AS documents,
               (SELECT count(*) FROM passages WHERE kind = 'comment')::int AS comments,
               (SELECT count(*) FROM passages WHERE kind = 'attachment')::int AS attachments,
               (SELECT count(*) FROM (SELECT id FROM docs UNION SELECT id FROM passages) a)::int AS any,
               (SELECT count(*) FROM (
                  SELECT id FROM docs WHERE updated_at > ${after}::timestamptz
                  UNION SELECT id FROM passages WHERE kind = 'comment' AND updated_at > ${after}::timestamptz) f)::int AS filtered`);
      for (const key of Object.keys(counts) as Array<keyof typeof counts>) counts[key].push(Number(row[key]));
    }
    return {
      queries: sample,
      ...spread(counts.documents),
      viaComments: spread(counts.comments),
      viaAttachments: spread(counts.attachments),
      anyField: spread(counts.any),
      filtered: spread(counts.filtered),
    };
  } finally {
    await pool.end();
  }
}

/** Requests whose query comes from `query()` each time one is sent. */
function searching(token: string, workspaceId: string, query: () => string, filters = ''): RequestSpec[] {
  const path = `/api/v1/documents/search?workspaceId=${workspaceId}&limit=20${filters}&query=`;
  return [
    {
      method: 'GET',
      path,
      headers: { authorization: `Bearer ${token}` },
      setupRequest: (request) => ({ ...request, path: path + encodeURIComponent(query()) }),
    },
  ];
}

export async function benchSearch(options: SearchBenchOptions): Promise<SearchBenchResult> {
  const { log } = options;
  const fill = async (name: string, count: number) => {
    const workspaceId = await options.createWorkspace(name);
    log(`indexing ${count} generated documents through the engine (${name})`);
    const indexing = await fillSearchIndex(options.searchDatabaseUrl, workspaceId, count, 500, log);
    log(`indexed ${indexing.documents} in ${indexing.seconds} s (${indexing.documentsPerSec}/s)`);
    return { workspaceId, indexing };
  };
  // The rows at 10 and 50 connections run while the index holds only the small workspace: a GIN
  // bitmap covers every workspace's postings (docs/DECISIONS.md, "Fresh searches").
  const small = await fill('Bench search', options.freshDocuments);
  const vocabulary = commonWords();
  // One cut-off for the whole run: the fills wrote updatedAt relative to their own start.
  const filters = filterParams(Date.now());
  const matches: Record<string, MatchSpread> = {
    [options.freshDocuments]: await matchSpread(
      options.searchDatabaseUrl,
      small.workspaceId,
      vocabulary,
      filters.after,
    ),
  };
  // One stream for the whole run, warm-ups included: no set of words is ever sent twice. The ten
  // repeated queries are its first ten, so no new query is one of them.
  const fresh = freshQueries(vocabulary);
  const ten = Array.from({ length: 10 }, fresh);
  let turn = 0;

  const scenarios: LoadResult[] = [];
  const run = async (scenario: string, connections: number, requests?: RequestSpec[]) => {
    log(`${scenario}: ${connections} connections, ${options.durationS} s`);
    const result = await load(scenario, requests ? options.gatewayUrl : `${options.helloUrl}/`, {
      connections,
      durationS: options.durationS,
      autocannon: requests ? { requests } : undefined,
      cpuMeters: options.cpuMeters,
      samples: true,
    });
    log(
      `${scenario}: ${result.requestsPerSec} req/s, p50 ${result.latencyP50Ms} ms, p95 ${result.latencyP95Ms} ms, p99 ${result.latencyP99Ms} ms, errors ${result.errors + result.non2xx}`,
    );
    scenarios.push(result);
  };
  for (const connections of [10, 50]) {
    await run('hello-world', connections);
    await run(
      REPEATED,
      connections,
      searching(options.token, small.workspaceId, () => ten[turn++ % ten.length]),
    );
    await run(FRESH, connections, searching(options.token, small.workspaceId, fresh));
    await run(FILTERED, connections, searching(options.token, small.workspaceId, fresh, filters.query));
  }
  const large = await fill('Bench search, large', options.documents);
  matches[options.documents] = await matchSpread(
    options.searchDatabaseUrl,
    large.workspaceId,
    vocabulary,
    filters.after,
  );
  log(`matches of new queries: ${JSON.stringify(matches)}`);
  await run('hello-world', 1);
  await run(freshOver(options.documents), 1, searching(options.token, large.workspaceId, fresh));

  log(`write → searchable: ${options.lagRate} documents/s for ${options.lagDurationS} s`);
  const lag = await measureLag(options.gatewayUrl, options.token, large.workspaceId, {
    ratePerSec: options.lagRate,
    durationS: options.lagDurationS,
    pollIntervalMs: 10,
  });
  log(`lag: p50 ${lag.p50Ms} ms, p99 ${lag.p99Ms} ms, max ${lag.maxMs} ms, not found ${lag.notFound}`);
  return {
    indexing: [small.indexing, large.indexing],
    vocabulary,
    matches,
    filters: filters.query.slice(1),
    scenarios,
    lag,
  };
}
