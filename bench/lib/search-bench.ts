import { createDatabasePool, sql } from '@wiki/db';
import type { RequestSpec } from 'autocannon';
import { parseQuery } from '../../services/search/src/domain/query.js';
import { type CpuMeter, type LoadResult, load } from './load.js';
import { fillSearchIndex, type IndexingResult, type LagResult, measureLag } from './search.js';
import { commonWords, freshQueries } from './search-queries.js';

/**
 * The search rows (issue 29 point 1): over a workspace of `freshDocuments` generated documents
 * (the only ones in the index then), a search whose every request is a query not asked before
 * (the answer cache cannot help) beside ten queries asked again and again, at 10 and 50
 * connections; then, with a workspace of `documents` added, new queries in it one at a time
 * (p95); each beside a hello-world at the same connections, run just before it. Then the time
 * from a write to its being searchable.
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

export interface MatchSpread {
  queries: number;
  p10: number;
  p50: number;
  p90: number;
  mean: number;
}

export interface SearchBenchResult {
  indexing: IndexingResult[];
  /** The common words the new queries are made of. */
  vocabulary: string[];
  /** How many documents a sample of the new queries matches, per workspace size. */
  matches: Record<string, MatchSpread>;
  scenarios: LoadResult[];
  lag: LagResult;
}

export const FRESH = 'search, every query new';
export const REPEATED = 'search, ten queries repeated';

/** Matches of `sample` queries of the stream's kind (another stream: none of them is sent). */
async function matchSpread(databaseUrl: string, workspaceId: string, words: string[], sample = 100) {
  const pool = await createDatabasePool(databaseUrl, { maximumPoolSize: 1 });
  try {
    const next = freshQueries(words, 7_777);
    const counts: number[] = [];
    for (let i = 0; i < sample; i++) {
      const tsquery = parseQuery(next()).tsquery as string;
      counts.push(
        Number(
          await pool.oneFirst(sql.unsafe`
            SELECT count(*)::int FROM search_documents
            WHERE workspace_id = ${workspaceId} AND NOT archived AND tsv @@ ${tsquery}::tsquery`),
        ),
      );
    }
    counts.sort((a, b) => a - b);
    const at = (p: number) => counts[Math.min(counts.length - 1, Math.floor(p * counts.length))];
    return {
      queries: sample,
      p10: at(0.1),
      p50: at(0.5),
      p90: at(0.9),
      mean: Math.round(counts.reduce((a, b) => a + b, 0) / counts.length),
    };
  } finally {
    await pool.end();
  }
}

/** Requests whose query comes from `query()` each time one is sent. */
function searching(token: string, workspaceId: string, query: () => string): RequestSpec[] {
  const path = `/api/v1/documents/search?workspaceId=${workspaceId}&limit=20&query=`;
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
  const matches: Record<string, MatchSpread> = {
    [options.freshDocuments]: await matchSpread(options.searchDatabaseUrl, small.workspaceId, vocabulary),
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
  }
  const large = await fill('Bench search, large', options.documents);
  matches[options.documents] = await matchSpread(options.searchDatabaseUrl, large.workspaceId, vocabulary);
  log(`matches of new queries: ${JSON.stringify(matches)}`);
  await run('hello-world', 1);
  await run(
    `${FRESH}, ${options.documents.toLocaleString('en')} documents`,
    1,
    searching(options.token, large.workspaceId, fresh),
  );

  log(`write → searchable: ${options.lagRate} documents/s for ${options.lagDurationS} s`);
  const lag = await measureLag(options.gatewayUrl, options.token, large.workspaceId, {
    ratePerSec: options.lagRate,
    durationS: options.lagDurationS,
    pollIntervalMs: 10,
  });
  log(`lag: p50 ${lag.p50Ms} ms, p99 ${lag.p99Ms} ms, max ${lag.maxMs} ms, not found ${lag.notFound}`);
  return { indexing: [small.indexing, large.indexing], vocabulary, matches, scenarios, lag };
}
