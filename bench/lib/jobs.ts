import { FILES_PER_SECTION, importFixture } from './jobs-fixture.js';
import type { LoadResult } from './load.js';
import { watchPeakRss } from './peak-rss.js';
import { type BenchReport, writeResultAndSection } from './report.js';

/** One row of issue 32: a job from its POST until the job reads `done`. */
export interface JobRow {
  scenario: string;
  documents: number;
  seconds: number;
  documentsPerSec: number;
  /** The export worker process's peak RSS during the row, and with its children (Chromium). */
  workerPeakRssMiB: number;
  workerTreePeakRssMiB: number;
  /**
   * Seconds from the POST until the job first showed its total: for an import, the upload read and
   * planned (converted) before anything is created; for an export, the tree read.
   */
  totalKnownAfterS: number | null;
  /** The upload's size for an import, the zip's for an export. */
  bytes: number;
  /** The import's warnings (0 expected: every link and image is in the zip). */
  warnings?: number;
}

export interface JobsBenchReport {
  date: string;
  machine: BenchReport['machine'];
  settings: Record<string, unknown>;
  helloWorld: Pick<LoadResult, 'requestsPerSec' | 'connections' | 'latencyP50Ms'> | null;
  rows: JobRow[];
}

export interface JobsBenchParts {
  gatewayUrl: string;
  token: string;
  /** A new workspace of the bench user. */
  createWorkspace: (name: string) => Promise<string>;
  /** The pid of the export worker process, whose memory is followed. */
  workerPid: number;
  /** Files of the import zip (a multiple of 50), hence documents of the exported workspace. */
  files: number;
  /** Tree export formats to time (`markdown`, `pdf`); none skips the export rows. */
  exportFormats: string[];
  /** Whether the import row is reported (the import runs anyway: it makes the exported workspace). */
  reportImport: boolean;
  /** How long one job may take before the row fails. */
  timeoutMs: number;
  log: (message: string) => void;
}

interface Job {
  status: 'queued' | 'running' | 'done' | 'failed';
  progress: { done: number; total: number };
  result: Record<string, unknown> | null;
  error: string | null;
}

const round = (n: number) => Math.round(n * 10) / 10;

/**
 * Polls the job every 200 ms (the rows last tens of seconds) until it is done; a failed job throws.
 * Also answers when its total first showed, in seconds from `started`.
 */
async function finished(
  gatewayUrl: string,
  token: string,
  jobId: string,
  timeoutMs: number,
  started: number,
): Promise<Job & { totalKnownAfterS: number | null }> {
  const deadline = Date.now() + timeoutMs;
  let totalKnownAfterS: number | null = null;
  for (;;) {
    const res = await fetch(`${gatewayUrl}/api/v1/jobs/${jobId}`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200) throw new Error(`GET /jobs/${jobId}: ${res.status} ${await res.text()}`);
    const job = ((await res.json()) as { data: Job }).data;
    if (totalKnownAfterS === null && job.progress.total > 0) {
      totalKnownAfterS = round((performance.now() - started) / 1000);
    }
    if (job.status === 'done') return { ...job, totalKnownAfterS };
    if (job.status === 'failed') throw new Error(`job ${jobId} failed: ${job.error}`);
    if (Date.now() > deadline)
      throw new Error(`job ${jobId} not done after ${timeoutMs} ms (${JSON.stringify(job.progress)})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function accepted(res: Response, what: string): Promise<string> {
  if (res.status !== 202) throw new Error(`${what}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { jobId: string } }).data.jobId;
}

/**
 * Issue 32's rows: a zip of Markdown files imported into a new workspace (documents per second from
 * the POST until the job is done), then that workspace exported as a tree in each format, one job
 * at a time, with the export worker's peak RSS during each.
 */
export async function benchJobs(parts: JobsBenchParts): Promise<JobRow[]> {
  const { gatewayUrl, token, log } = parts;
  const auth = { authorization: `Bearer ${token}` };
  if (parts.files % FILES_PER_SECTION !== 0)
    throw new Error(`--import-files must be a multiple of ${FILES_PER_SECTION}`);
  const fixture = await importFixture(parts.files / FILES_PER_SECTION);
  log(`jobs: import zip of ${fixture.files} Markdown files and ${fixture.images} images, ${fixture.zip.length} bytes`);
  const workspaceId = await parts.createWorkspace('Bench import');
  const rows: JobRow[] = [];

  const form = new FormData();
  form.set('workspaceId', workspaceId);
  form.set('file', new Blob([fixture.zip], { type: 'application/zip' }), 'Bench export.zip');
  const importWatch = watchPeakRss(parts.workerPid);
  const importStarted = performance.now();
  let imported: Awaited<ReturnType<typeof finished>>;
  try {
    const importId = await accepted(
      await fetch(`${gatewayUrl}/api/v1/documents/import`, { method: 'POST', headers: auth, body: form }),
      'POST /documents/import',
    );
    imported = await finished(gatewayUrl, token, importId, parts.timeoutMs, importStarted);
  } catch (error) {
    importWatch.stop();
    throw error;
  }
  const importSeconds = (performance.now() - importStarted) / 1000;
  const importPeak = importWatch.stop();
  const documentIds = imported.result?.documentIds as string[];
  const importRow: JobRow = {
    scenario: `import: ${fixture.files} Markdown files (zip)`,
    documents: documentIds.length,
    seconds: round(importSeconds),
    documentsPerSec: round(documentIds.length / importSeconds),
    workerPeakRssMiB: importPeak.processMiB,
    workerTreePeakRssMiB: importPeak.withChildrenMiB,
    totalKnownAfterS: imported.totalKnownAfterS,
    bytes: fixture.zip.length,
    warnings: Number(imported.result?.warningCount ?? 0),
  };
  log(`jobs: ${importRow.scenario}: ${JSON.stringify(importRow)}`);
  if (importRow.documents !== fixture.files) throw new Error(`the import made ${importRow.documents} documents`);
  if (parts.reportImport) rows.push(importRow);

  for (const format of parts.exportFormats) {
    const watch = watchPeakRss(parts.workerPid);
    const started = performance.now();
    let job: Awaited<ReturnType<typeof finished>>;
    try {
      const jobId = await accepted(
        await fetch(`${gatewayUrl}/api/v1/workspaces/${workspaceId}/export`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ format }),
        }),
        `POST /workspaces/:id/export (${format})`,
      );
      job = await finished(gatewayUrl, token, jobId, parts.timeoutMs, started);
    } catch (error) {
      watch.stop();
      throw error;
    }
    const seconds = (performance.now() - started) / 1000;
    const peak = watch.stop();
    const documents = Number(job.result?.documentCount);
    const row: JobRow = {
      scenario: `workspace export: ${documents} documents as ${format}`,
      documents,
      seconds: round(seconds),
      documentsPerSec: round(documents / seconds),
      workerPeakRssMiB: peak.processMiB,
      workerTreePeakRssMiB: peak.withChildrenMiB,
      totalKnownAfterS: job.totalKnownAfterS,
      bytes: Number(job.result?.bytes),
    };
    log(`jobs: ${row.scenario}: ${JSON.stringify(row)}`);
    if (documents !== fixture.files) throw new Error(`the ${format} export holds ${documents} documents`);
    rows.push(row);
  }
  return rows;
}

const START = '<!-- bench:jobs:start -->';
const END = '<!-- bench:jobs:end -->';

function section(report: JobsBenchReport): string {
  const m = report.machine;
  const hello = report.helloWorld;
  return [
    START,
    `## Import and tree export (issue 32; latest run: ${report.date})`,
    '',
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}. Settings: ${Object.entries(
      report.settings,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}. Postgres, Redis, NATS, the parts, Chromium and the client share these cores.`,
    hello
      ? `Hello-world in the same run: ${hello.requestsPerSec} req/s at ${hello.connections} connections (p50 ${hello.latencyP50Ms} ms).`
      : '',
    '',
    "Target (ARCHITECTURE 5.19, issue 32): documents per second and the export worker's peak RSS, from",
    'the POST until the job reads done (polled every 200 ms), one job at a time through the gateway.',
    'The import zip: sections of a page beside a folder of 7 pages, each beside a folder of 6 notes',
    '(three levels), every file linking to its parent and some to a sibling, ten PNG images; the',
    'exports are of the workspace that import made. Peak RSS: the worker process (VmHWM, reset before',
    'each row), and the worker with its children (Chromium) sampled every 250 ms. "Total known after":',
    'when the job first showed its total (an import: the upload read and converted, nothing created',
    'yet; an export: the tree read).',
    '',
    '| row | documents | seconds | documents/s | total known after s | worker peak RSS MiB | with Chromium MiB | bytes |',
    '|---|---|---|---|---|---|---|---|',
    ...report.rows.map(
      (r) =>
        `| ${r.scenario} | ${r.documents} | ${r.seconds} | ${r.documentsPerSec} | ${r.totalKnownAfterS ?? '–'} | ${r.workerPeakRssMiB} | ${r.workerTreePeakRssMiB} | ${r.bytes} |`,
    ),
    '',
    'Run only these rows with `npm run bench -- --only=import,tree-export` (`--import-files=1000`,',
    '`--tree-export-formats=markdown,pdf`).',
    END,
  ]
    .filter((line, i, all) => !(line === '' && all[i - 1] === ''))
    .join('\n');
}

/** Writes the JSON result and replaces the jobs section of docs/PERFORMANCE.md. */
export function writeJobsReport(report: JobsBenchReport, resultsFile: string, markdownFile: string): void {
  writeResultAndSection(report, resultsFile, markdownFile, section(report), [START, END]);
}
