import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchReport, writeResultAndSection } from './report.js';

export interface ExportTiming {
  scenario: string;
  requests: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  bytes: number;
}

export interface ExportThroughput {
  workers: number;
  clients: number;
  seconds: number;
  exports: number;
  exportsPerSec: number;
  p50Ms: number;
  errors: number;
}

export interface ExportBenchReport {
  date: string;
  machine: BenchReport['machine'];
  settings: Record<string, unknown>;
  document: { blocks: number; contentBytes: number; pdfPages: number };
  timings: ExportTiming[];
  throughput: ExportThroughput[];
  targets: Array<{ target: string; measured: string; met: boolean }>;
}

export interface ExportBenchParts {
  gatewayUrl: string;
  token: string;
  workspaceId: string;
  /** Starts one more worker process (EXPORT_ROLE=worker); the bench measures at 1, then 2. */
  addWorker: () => Promise<void>;
  requests: number;
  throughputSeconds: number;
  clients: number;
  log: (message: string) => void;
}

const t = (text: string, styles: Record<string, boolean> = {}) => ({ type: 'text', text, styles });
const WORDS =
  'export render page layout chromium worker queue document heading paragraph table column value result report review section detail summary'.split(
    ' ',
  );
const sentence = (i: number, n: number) =>
  Array.from({ length: n }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(' ');

/** About ten A4 pages of every kind of block (the bench reports the page count it printed). */
export function tenPageDocument(): unknown[] {
  const blocks: unknown[] = [];
  for (let s = 1; s <= 8; s += 1) {
    blocks.push({ type: 'heading', props: { level: 2 }, content: [t(`Section ${s}`)] });
    for (let p = 0; p < 4; p += 1) {
      blocks.push({
        type: 'paragraph',
        content: [t(`${sentence(s + p, 30)}. `), t(sentence(s * p + 1, 12), { bold: true }), t(` ${sentence(p, 24)}.`)],
      });
    }
    blocks.push({ type: 'heading', props: { level: 3 }, content: [t(`Checklist ${s}`)] });
    for (let i = 0; i < 3; i += 1) {
      blocks.push({ type: 'bulletListItem', content: [t(sentence(s + i, 8))] });
      blocks.push({ type: 'checkListItem', props: { checked: i % 2 === 0 }, content: [t(sentence(i, 6))] });
    }
    blocks.push({
      type: 'table',
      content: {
        type: 'tableContent',
        rows: Array.from({ length: 6 }, (_, r) => ({
          cells: [[t(r === 0 ? 'Item' : `Row ${r}`)], [t(r === 0 ? 'Owner' : (WORDS[r] ?? ''))], [t(String(r * s))]],
        })),
      },
    });
    blocks.push({
      type: 'codeBlock',
      props: { language: 'typescript' },
      content: [
        Array.from({ length: 8 }, (_, i) => `const value${i} = render(${s}, ${i}); // ${sentence(i, 4)}`).join('\n'),
      ],
    });
  }
  return blocks;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

async function exportOnce(url: string, token: string): Promise<{ ms: number; bytes: number; ok: boolean }> {
  const started = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.arrayBuffer();
  return { ms: performance.now() - started, bytes: body.byteLength, ok: res.status === 200 };
}

/** Sequential requests (one at a time), after `warm` unmeasured ones. */
async function timing(scenario: string, url: string, token: string, requests: number, warm: number) {
  for (let i = 0; i < warm; i += 1) await exportOnce(url, token);
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < requests; i += 1) {
    const one = await exportOnce(url, token);
    if (!one.ok) throw new Error(`${scenario}: an export failed`);
    times.push(one.ms);
    bytes = one.bytes;
  }
  times.sort((a, b) => a - b);
  return {
    scenario,
    requests,
    p50Ms: round(percentile(times, 50)),
    p95Ms: round(percentile(times, 95)),
    maxMs: round(times[times.length - 1] ?? Number.NaN),
    bytes,
  } satisfies ExportTiming;
}

/** `clients` loops exporting the PDF back to back for `seconds`: finished exports per second. */
async function throughput(url: string, token: string, workers: number, clients: number, seconds: number) {
  const until = performance.now() + seconds * 1000;
  const times: number[] = [];
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) {
        const one = await exportOnce(url, token);
        if (one.ok) times.push(one.ms);
        else errors += 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  return {
    workers,
    clients,
    seconds: round(elapsed),
    exports: times.length,
    exportsPerSec: round(times.length / elapsed),
    p50Ms: round(percentile(times, 50)),
    errors,
  } satisfies ExportThroughput;
}

function pdfPages(pdf: ArrayBuffer): number {
  const dir = mkdtempSync(join(tmpdir(), 'bench-export-'));
  try {
    writeFileSync(join(dir, 'f.pdf'), Buffer.from(pdf));
    const info = execFileSync('pdfinfo', [join(dir, 'f.pdf')], { encoding: 'utf8' });
    return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The export rows (issue 15): a ten-page document exported through the gateway one request at a
 * time (PDF warm, Word, Markdown), then PDFs back to back from several clients at 1 and 2 workers.
 */
export async function benchExport(parts: ExportBenchParts) {
  const { gatewayUrl, token, workspaceId, log } = parts;
  const content = tenPageDocument();
  const res = await fetch(`${gatewayUrl}/api/v1/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ workspaceId, title: 'Bench export', content }),
  });
  if (res.status !== 201) throw new Error(`creating the export document: ${res.status} ${await res.text()}`);
  const documentId = ((await res.json()) as { data: { id: string } }).data.id;
  const url = (format: string) => `${gatewayUrl}/api/v1/documents/${documentId}/export?format=${format}`;
  const first = await fetch(url('pdf'), { headers: { authorization: `Bearer ${token}` } });
  const pages = pdfPages(await first.arrayBuffer());
  log(`export: the document prints on ${pages} pages`);

  const timings: ExportTiming[] = [];
  for (const [scenario, format] of [
    ['PDF (warm)', 'pdf'],
    ['Word', 'docx'],
    ['Markdown', 'markdown'],
  ] as const) {
    const row = await timing(scenario, url(format), token, parts.requests, 3);
    log(`export ${scenario}: p50 ${row.p50Ms} ms, p95 ${row.p95Ms} ms, ${row.bytes} bytes`);
    timings.push(row);
  }
  const rows: ExportThroughput[] = [];
  for (const workers of [1, 2]) {
    if (workers === 2) await parts.addWorker();
    await timing('warm-up', url('pdf'), token, 2, 2);
    const row = await throughput(url('pdf'), token, workers, parts.clients, parts.throughputSeconds);
    log(
      `export throughput, ${workers} worker(s), ${parts.clients} clients: ${row.exportsPerSec} PDFs/s, p50 ${row.p50Ms} ms, errors ${row.errors}`,
    );
    rows.push(row);
  }
  const pdf = timings[0] as ExportTiming;
  return {
    document: { blocks: content.length, contentBytes: JSON.stringify(content).length, pdfPages: pages },
    timings,
    throughput: rows,
    targets: [
      { target: 'PDF of a 10-page document, warm, p50 < 1 s', measured: `${pdf.p50Ms} ms`, met: pdf.p50Ms < 1000 },
    ],
  };
}

const START = '<!-- bench:export:start -->';
const END = '<!-- bench:export:end -->';

function section(report: ExportBenchReport): string {
  const m = report.machine;
  return [
    START,
    `## Export (latest run: ${report.date})`,
    '',
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}. Settings: ${Object.entries(
      report.settings,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}. Postgres, Redis, NATS, the parts, Chromium and the client share these cores.`,
    '',
    `The document: ${report.document.blocks} blocks (${report.document.contentBytes} bytes of content) that print on ${report.document.pdfPages} A4 pages`,
    '(headings, paragraphs, bullet and check lists, a table and a code block per section). Every request goes',
    'through the gateway: the export API checks the caller, queues the job, a worker renders, the file comes back.',
    '',
    '| format | requests (one at a time) | p50 ms | p95 ms | max ms | file bytes |',
    '|---|---|---|---|---|---|',
    ...report.timings.map(
      (r) => `| ${r.scenario} | ${r.requests} | ${r.p50Ms} | ${r.p95Ms} | ${r.maxMs} | ${r.bytes} |`,
    ),
    '',
    'Worker throughput: PDFs of the same document back to back from several clients, with one worker',
    'process (EXPORT_CONCURRENCY=2: one Chromium, two pages), then with a second worker process added.',
    '',
    '| workers | clients | seconds | PDFs | PDFs/s | p50 ms | errors |',
    '|---|---|---|---|---|---|---|',
    ...report.throughput.map(
      (r) =>
        `| ${r.workers} | ${r.clients} | ${r.seconds} | ${r.exports} | ${r.exportsPerSec} | ${r.p50Ms} | ${r.errors} |`,
    ),
    '',
    ...report.targets.map((t) => `- ${t.met ? 'met' : 'NOT MET'}: ${t.target}: ${t.measured}`),
    '',
    'Run only these rows with `npm run bench -- --only=export`.',
    END,
  ].join('\n');
}

/** Writes the JSON result and replaces the export section of docs/PERFORMANCE.md. */
export function writeExportReport(report: ExportBenchReport, resultsFile: string, markdownFile: string): void {
  writeResultAndSection(report, resultsFile, markdownFile, section(report), [START, END]);
}
