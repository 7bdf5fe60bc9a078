import { type BenchReport, writeResultAndSection } from './report.js';
import { AUTHORS } from './search.js';
import { FILTERED, type SearchBenchResult, type Spread } from './search-bench.js';
import { ATTACHED_EVERY, ATTACHMENT_CHARS, COMMENTED_EVERY } from './search-corpus.js';

/** What benchSearch measured, with the run's circumstances and the targets judged. */
export interface SearchBenchReport extends SearchBenchResult {
  date: string;
  machine: BenchReport['machine'];
  settings: Record<string, unknown>;
  /**
   * Set when something else kept the machine busy (load average at the start of the run above
   * this threshold): the figures are then reported, not judged against their targets.
   */
  sharedMachine: { loadAverage: number; threshold: number } | null;
  targets: Array<{ target: string; measured: string; met: boolean }>;
}

const spreadText = (s: Spread) => `p10 ${s.p10}, median ${s.p50}, p90 ${s.p90}, mean ${s.mean}`;

const START = '<!-- bench:search:start -->';
const END = '<!-- bench:search:end -->';

function section(report: SearchBenchReport): string {
  // Each row beside the hello-world of its connections that ran last before it.
  const baseline = (index: number) =>
    report.scenarios
      .slice(0, index + 1)
      .reverse()
      .find((s) => s.scenario === 'hello-world' && s.connections === report.scenarios[index].connections);
  const rows = report.scenarios.map((s, i) => {
    const base = baseline(i);
    const ratio = base ? `${((s.requestsPerSec / base.requestsPerSec) * 100).toFixed(2)} %` : '–';
    const cpu = s.cpuMsPerRequest
      ? Object.entries(s.cpuMsPerRequest)
          .filter(([, ms]) => ms >= 0.05)
          .map(([part, ms]) => `${part} ${ms}`)
          .join(', ') || '–'
      : '–';
    return `| ${s.scenario} | ${s.connections} | ${s.requestsPerSec} | ${ratio} | ${s.latencyP50Ms} | ${s.latencyP95Ms ?? '–'} | ${s.latencyP99Ms} | ${s.errors + s.non2xx} | ${cpu} |`;
  });
  const m = report.machine;
  const l = report.lag;
  const shared = report.sharedMachine;
  const verdict = (met: boolean) =>
    shared ? 'measured while the machine was shared: not judged' : met ? 'met' : '**not met**';
  return [
    START,
    `## Search (latest run: ${report.date})`,
    '',
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}. Settings: ${Object.entries(
      report.settings,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}. Postgres, NATS, the parts and autocannon share these cores.`,
    ...(shared
      ? [
          '',
          `**Measured while the machine was shared** (load average ${shared.loadAverage} when the run was launched, above`,
          `${shared.threshold}): other work took CPU from every row, so the figures are not judged against their targets.`,
        ]
      : []),
    '',
    'Indexes: generated documents (150 words, a title of 3–6 words; one in 10 holds the word `meridian`, one in',
    "5,000 `quokkaville`, one in 20 a CJK sentence) written through the Postgres engine's bulk upsert (lexemes made in",
    'the bench process, two batches of 500 in flight). The rows at 10 and 50 connections run while the index holds the',
    'first workspace only (a GIN bitmap covers every workspace); the second is added for the row at 1 connection:',
    '',
    ...report.indexing.map(
      (i) =>
        `- ${i.documents.toLocaleString('en')} documents in ${i.seconds} s: **${i.documentsPerSec} documents/s**, ${i.bytesPerDocument} bytes per document (table with TOAST ${i.tableMiB} MiB, indexes ${i.indexMiB} MiB), slowest batch of 500 ${i.slowestBatchMs} ms.`,
    ),
    '',
    `Each document has one of ${AUTHORS} generated creators and an updatedAt spread evenly over the year before the fill. After`,
    'the documents (and timed apart from them, so the figures above compare with runs before passages), their',
    "passages through the engine's passage upsert: one or two comments of 40–80 words on one document in",
    `${COMMENTED_EVERY}, a ${ATTACHMENT_CHARS.toLocaleString('en')}-character attachment text on one in ${ATTACHED_EVERY}, both of the same vocabulary and skew as the`,
    'documents (none of the planted words):',
    '',
    ...report.indexing.map(
      ({ documents, passages: p }) =>
        `- of ${documents.toLocaleString('en')} documents: ${p.comments.toLocaleString('en')} comments and ${p.attachments.toLocaleString('en')} attachment texts (${(p.attachmentChars / 2 ** 20).toFixed(1)} MiB of text) in ${p.seconds} s: **${p.passagesPerSec} passages/s**, slowest batch ${p.slowestBatchMs} ms; passages table with TOAST ${p.tableMiB} MiB, indexes ${p.indexMiB} MiB (every workspace so far).`,
    ),
    '',
    `New queries: 2–4 words drawn from the corpus's ${report.vocabulary.length} common words (four or more letters, each in at least`,
    '12 % of the documents), a set of words never sent before in the run (warm-ups included), so the answer cache',
    'cannot help. Documents they match (a sample of 100 such queries, counted in the index):',
    '',
    ...Object.entries(report.matches).map(
      ([documents, s]) =>
        `- of ${Number(documents).toLocaleString('en')}: by title or text ${spreadText(s)}; through a comment ${spreadText(s.viaComments)}; through an attachment text ${spreadText(s.viaAttachments)}; in any field ${spreadText(s.anyField)}; with the filters ${spreadText(s.filtered)}`,
    ),
    '',
    `"${FILTERED}": the same stream of new queries with \`${report.filters}\` (documents updated in the last`,
    'half-year, matched in titles, texts and comments: a reader narrowing a search to recent discussions). The',
    'other new queries search every field, comments and attachment texts included.',
    '',
    'The ten repeated queries are the first ten of that stream, asked in turn: after the first round they come from',
    'the answer cache (valid until their workspace is written).',
    '',
    '| scenario | connections | req/s | vs hello-world (same connections, run just before) | p50 ms | p95 ms | p99 ms | errors | CPU ms per request |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Write → searchable: ${l.documents} documents created through the gateway at ${l.ratePerSec}/s for ${l.durationS} s, each`,
    `polled for by a word of its own every ${l.pollIntervalMs} ms from its 201 until a search answer holds it: p50 **${l.p50Ms} ms**,`,
    `p99 **${l.p99Ms} ms**, max ${l.maxMs} ms, ${l.notFound} not found within 10 s.`,
    '',
    '| target (issue 29 point 1, issue 12 point 8) | measured | |',
    '|---|---|---|',
    ...report.targets.map((t) => `| ${t.target} | ${t.measured} | ${verdict(t.met)} |`),
    '',
    'Search rows are GET /api/v1/documents/search through the gateway (JWT check, identity token, proxy, membership',
    "check, the workspace's index version read, and the page of 20 with its snippets). CPU per request is each part's",
    'CPU time over the requests of the row (`postgres` counts every Postgres process of the machine).',
    'Run only these rows with `npm run bench -- --only=search` (`--search-fresh-documents=`, `--search-documents=`,',
    '`--lag-rate=`, `--lag-duration=`).',
    END,
  ].join('\n');
}

/** Writes the JSON result and replaces the search section of docs/PERFORMANCE.md. */
export function writeSearchReport(report: SearchBenchReport, resultsFile: string, markdownFile: string): void {
  writeResultAndSection(report, resultsFile, markdownFile, section(report), [START, END]);
}
