import type { LoadResult } from './load.js';
import { type BenchReport, writeResultAndSection } from './report.js';
import type { IndexingResult, LagResult } from './search.js';

export interface SearchBenchReport {
  date: string;
  machine: BenchReport['machine'];
  settings: Record<string, unknown>;
  indexing: IndexingResult;
  /** hello-world and search rows, each search row compared with the hello-world of its connections. */
  scenarios: LoadResult[];
  lag: LagResult;
  targets: Array<{ target: string; measured: string; met: boolean }>;
}

const START = '<!-- bench:search:start -->';
const END = '<!-- bench:search:end -->';

function section(report: SearchBenchReport): string {
  const baseline = (connections: number) =>
    report.scenarios.find((s) => s.scenario.startsWith('hello-world') && s.connections === connections);
  const rows = report.scenarios.map((s) => {
    const base = baseline(s.connections);
    const ratio = base ? `${((s.requestsPerSec / base.requestsPerSec) * 100).toFixed(1)} %` : '–';
    return `| ${s.scenario} | ${s.connections} | ${s.requestsPerSec} | ${ratio} | ${s.latencyP50Ms} | ${s.latencyP95Ms ?? '–'} | ${s.latencyP99Ms} | ${s.errors + s.non2xx} |`;
  });
  const m = report.machine;
  const i = report.indexing;
  const l = report.lag;
  return [
    START,
    `## Search (latest run: ${report.date})`,
    '',
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}. Settings: ${Object.entries(
      report.settings,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}. Postgres, NATS, the parts and autocannon share these cores.`,
    '',
    `Index: ${i.documents} generated documents (150 words, a title of 3–6 words; one in 10 holds the common word, one in`,
    `5,000 the rare word, one in 20 a CJK sentence) written through the Postgres engine's bulk upsert in ${i.seconds} s:`,
    `**${i.documentsPerSec} documents/s** indexed (lexemes made in the bench process, two batches of 500 in flight).`,
    `Storage: ${i.bytesPerDocument} bytes per document (table with TOAST ${i.tableMiB} MiB, indexes ${i.indexMiB} MiB).`,
    `Slowest batch of 500: ${i.slowestBatchMs} ms (a batch that merges the GIN pending list waits for it).`,
    '',
    '| scenario | connections | req/s | vs hello-world (same connections) | p50 ms | p95 ms | p99 ms | errors |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Write → searchable: ${l.documents} documents created through the gateway at ${l.ratePerSec}/s for ${l.durationS} s, each`,
    `polled for by a word of its own every ${l.pollIntervalMs} ms from its 201 until a search answer holds it: p50 **${l.p50Ms} ms**,`,
    `p99 **${l.p99Ms} ms**, max ${l.maxMs} ms, ${l.notFound} not found within 10 s.`,
    '',
    '| target (issue 12 point 8) | measured | |',
    '|---|---|---|',
    ...report.targets.map((t) => `| ${t.target} | ${t.measured} | ${t.met ? 'met' : '**not met**'} |`),
    '',
    'Search rows are GET /api/v1/documents/search through the gateway (JWT check, identity token, proxy, membership',
    'check, the index version read, and the page of 20 with its snippets), in the workspace holding the generated documents.',
    "Each row repeats one query: after the first request it is answered from the search service's answer cache",
    '(valid until the index changes); what a query the cache does not hold costs is in the section below.',
    'Run only these rows with `npm run bench -- --only=search` (`--search-documents=`, `--lag-rate=`, `--lag-duration=`).',
    END,
  ].join('\n');
}

/** Writes the JSON result and replaces the search section of docs/PERFORMANCE.md. */
export function writeSearchReport(report: SearchBenchReport, resultsFile: string, markdownFile: string): void {
  writeResultAndSection(report, resultsFile, markdownFile, section(report), [START, END]);
}
