// `npm run reindex -- [--workspace <id>] [--restart] [--batch-size <n>]`: rebuilds the search index
// of one workspace, or of all, from a running document service (commands/reindex.ts). Reads the
// same configuration as the services (SEARCH_ENGINE, the search database, DOCUMENT_URL,
// INTERNAL_TOKEN_SECRET). Progress and the summary go to stdout; Ctrl-C stops after the batch in
// hand with the checkpoint kept, and the next run resumes there.

import { type Config, ConfigError, loadConfig, redactUrl } from '@wiki/config';
import { createDatabasePool } from '@wiki/db';
import { prepareDatabase } from '@wiki/service';
import { createServiceClient, streamDocumentsFrom } from '@wiki/service-client';
import type { ReindexProgress } from '../db/reindex-progress.js';
import { createSearchEngine } from '../engines/index.js';
import { searchService } from '../service.js';
import { loadSearchSettings } from '../settings.js';
import { describeScope, ReindexBusyError, type ReindexSummary, reindex } from './reindex.js';
import { parseReindexArgs, REINDEX_USAGE, ReindexUsageError } from './reindex-args.js';

function exit(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

/** Lines an engine or a failed call logs: to stderr, so that stdout is the progress alone. */
const logger = {
  info: (obj: object, msg?: string) => process.stderr.write(`${msg ?? ''} ${JSON.stringify(obj)}\n`),
  warn: (obj: object, msg?: string) => process.stderr.write(`warning: ${msg ?? ''} ${JSON.stringify(obj)}\n`),
  error: (obj: object, msg?: string) => process.stderr.write(`error: ${msg ?? ''} ${JSON.stringify(obj)}\n`),
};

const count = (n: number) => n.toLocaleString('en-US');

function progressLine(p: ReindexProgress): string {
  return `batch ${count(p.batches)}: ${count(p.indexed)} documents indexed, ${count(p.removed)} index entries removed (last ${p.lastId})`;
}

function summaryLine(s: ReindexSummary, seconds: number): string {
  const from = s.resumedAfter ? `resumed after ${s.resumedAfter}` : 'from the first document';
  const totals = `${count(s.indexed)} documents indexed in ${count(s.batches)} batches, ${count(s.removed)} index entries of deleted documents removed`;
  const passages = `${count(s.comments.indexed)} comments and ${count(s.attachments.indexed)} attachment texts indexed, ${count(s.comments.removed + s.attachments.removed)} of deleted ones removed`;
  if (s.finished)
    return `reindex of ${describeScope(s.scope)} finished (${from}): ${totals}; ${passages}; ${seconds.toFixed(1)} s`;
  return `reindex of ${describeScope(s.scope)} stopped (${from}): ${totals} so far; run it again to resume, or with --restart to start over`;
}

let args: ReturnType<typeof parseReindexArgs>;
try {
  args = parseReindexArgs(process.argv.slice(2));
} catch (error) {
  if (error instanceof ReindexUsageError) exit(`${error.message}\n${REINDEX_USAGE}`, 2);
  throw error;
}
if (args.help) {
  process.stdout.write(`${REINDEX_USAGE}\n`);
  process.exit(0);
}

let config: Config;
try {
  config = loadConfig();
  loadSearchSettings(config.env); // read again where the engine is made; checked here to exit 78
} catch (error) {
  if (error instanceof ConfigError) exit(error.message, 78);
  throw error;
}

// The checkpoint table comes with the search service's migrations: the same ones its start-up applies.
await prepareDatabase(searchService, config);
const pool = await createDatabasePool(config.databaseUrls.search, { maximumPoolSize: 3 });
const engine = await createSearchEngine(config, { pool, logger });
const stop = new AbortController();
process.on('SIGINT', () => {
  if (stop.signal.aborted) process.exit(130);
  process.stderr.write('stopping after the batch in hand (Ctrl-C again to quit at once)\n');
  stop.abort();
});

const started = performance.now();
process.stdout.write(
  `reindex of ${describeScope(args.workspaceId ?? '*')} with the ${engine.name} engine from ${config.urls.document} into ${redactUrl(config.databaseUrls.search)}\n`,
);
let code = 0;
try {
  const peers = createServiceClient({ service: 'search', config, logger });
  const summary = await reindex({
    engine,
    pool,
    documents: (from) => streamDocumentsFrom(peers, from),
    peers,
    workspaceId: args.workspaceId,
    restart: args.restart,
    batchSize: args.batchSize,
    signal: stop.signal,
    onProgress: (p) => process.stdout.write(`${progressLine(p)}\n`),
  });
  process.stdout.write(`${summaryLine(summary, (performance.now() - started) / 1000)}\n`);
  if (!summary.finished) code = 130;
} catch (error) {
  const message = error instanceof ReindexBusyError ? error.message : `reindex failed: ${(error as Error).message}`;
  process.stderr.write(`${message}\n`);
  process.stderr.write('the checkpoint of the last batch done is kept: run it again to resume\n');
  code = 1;
} finally {
  await engine.close();
  await pool.end();
}
process.exit(code);
