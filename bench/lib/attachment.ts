import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import type { ExtractionResult } from './extraction.js';
import { type CpuMeter, type LoadResult, load } from './load.js';
import { type BenchReport, writeResultAndSection } from './report.js';

/** The file every upload and download row moves. */
export const ATTACHMENT_FILE_BYTES = 4 * 1024 * 1024;
const MiB = 1024 * 1024;

export interface AttachmentRow extends LoadResult {
  /** requests/s × the file's size: the payload moved, headers and form framing left out. */
  mibPerSec: number;
}

export interface AttachmentBenchReport {
  date: string;
  machine: BenchReport['machine'];
  settings: Record<string, unknown>;
  fileBytes: number;
  /** hello-world rows (req/s), then uploads and downloads (req/s and MiB/s). */
  scenarios: AttachmentRow[];
  /** The attachment service's RSS before and right after the rows (MiB). */
  rssMiB: { before: number; after: number };
  /** Text extraction of a many-page PDF by the service's worker (issue 30 point 6). */
  extraction: ExtractionResult;
}

export interface AttachmentBenchParts {
  gatewayUrl: string;
  serviceUrl: string;
  helloUrl: string;
  /** Bearer token of the bench user (through the gateway) and an identity token for the service alone. */
  token: string;
  identity: string;
  durationS: number;
  cpuMeters: CpuMeter[];
  serviceRssMiB: () => number;
  log: (message: string) => void;
}

/** A multipart body of one file of `size` random (incompressible) bytes and the two ids. */
export function uploadForm(workspaceId: string, documentId: string, size: number) {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="workspaceId"\r\n\r\n${workspaceId}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="documentId"\r\n\r\n${documentId}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n';
  return {
    body: Buffer.concat([Buffer.from(head), randomBytes(size), Buffer.from(`\r\n--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/**
 * Upload and download rows of a 4 MiB file through the gateway (and to the service alone, to see
 * what the proxy costs), at 1 and 4 connections, beside the hello-world of the same run. Every
 * upload stores a new attachment (its spool file, the object, the record and its event), so the
 * rows measure the whole path, disk included.
 */
export async function benchAttachments(parts: AttachmentBenchParts): Promise<AttachmentRow[]> {
  const { gatewayUrl, serviceUrl, token, identity, log } = parts;
  const auth = { authorization: `Bearer ${token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const ws = await fetch(`${gatewayUrl}/api/v1/workspaces`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ name: 'Bench attachments' }),
  });
  const workspaceId = ((await ws.json()) as { data: { id: string } }).data.id;
  const doc = await fetch(`${gatewayUrl}/api/v1/documents`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ workspaceId, title: 'Files' }),
  });
  const documentId = ((await doc.json()) as { data: { id: string } }).data.id;
  const form = uploadForm(workspaceId, documentId, ATTACHMENT_FILE_BYTES);
  const first = await fetch(`${gatewayUrl}/api/v1/attachments/upload`, {
    method: 'POST',
    headers: { ...auth, 'content-type': form.contentType },
    body: form.body,
  });
  if (first.status !== 201) throw new Error(`attachment upload answered ${first.status}: ${await first.text()}`);
  const fileUrl = ((await first.json()) as { data: { url: string } }).data.url;

  const rows: AttachmentRow[] = [];
  const run = async (
    scenario: string,
    url: string,
    connections: number,
    headers: Record<string, string>,
    moved: number,
    upload = false,
  ) => {
    log(`${scenario}: ${connections} connections, ${parts.durationS} s`);
    const result =
      moved === 0
        ? await load(scenario, url, { connections, durationS: parts.durationS, headers, cpuMeters: parts.cpuMeters })
        : await transfer(scenario, url, {
            connections,
            durationS: parts.durationS,
            cpuMeters: parts.cpuMeters,
            method: upload ? 'POST' : 'GET',
            headers: upload ? { ...headers, 'content-type': form.contentType } : headers,
            body: upload ? form.body : undefined,
          });
    const row = { ...result, mibPerSec: Math.round(((result.requestsPerSec * moved) / MiB) * 10) / 10 };
    log(
      `${scenario}: ${row.requestsPerSec} req/s${moved ? ` = ${row.mibPerSec} MiB/s` : ''}, p50 ${row.latencyP50Ms} ms, p99 ${row.latencyP99Ms} ms, errors ${row.errors + row.non2xx}`,
    );
    rows.push(row);
  };
  const service = { 'x-wiki-identity': identity };
  for (const connections of [1, 4]) {
    await run('hello-world', `${parts.helloUrl}/`, connections, {}, 0);
    await run(
      'upload 4 MiB',
      `${gatewayUrl}/api/v1/attachments/upload`,
      connections,
      auth,
      ATTACHMENT_FILE_BYTES,
      true,
    );
    await run('download 4 MiB', `${gatewayUrl}${fileUrl}`, connections, auth, ATTACHMENT_FILE_BYTES);
    await run(
      'upload 4 MiB (service only)',
      `${serviceUrl}/api/v1/attachments/upload`,
      connections,
      service,
      ATTACHMENT_FILE_BYTES,
      true,
    );
    await run('download 4 MiB (service only)', `${serviceUrl}${fileUrl}`, connections, service, ATTACHMENT_FILE_BYTES);
  }
  return rows;
}

interface TransferOptions {
  connections: number;
  durationS: number;
  cpuMeters: CpuMeter[];
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: Buffer;
}

/**
 * Requests with large bodies, `connections` at a time for `durationS` (after a 2 s warm-up),
 * on undici with the response bodies read and dropped chunk by chunk. Not autocannon: its
 * response parsing in JavaScript costs ~13 ms of CPU per MiB, which on shared cores made the
 * client, not the parts, the limit of the download rows.
 */
async function transfer(scenario: string, url: string, o: TransferOptions): Promise<LoadResult> {
  const agent = new Agent({ connections: o.connections, keepAliveTimeout: 30_000 });
  const once = async (): Promise<{ ok: boolean; ms: number }> => {
    const started = performance.now();
    const res = await request(url, { method: o.method, headers: o.headers, body: o.body, dispatcher: agent });
    for await (const _chunk of res.body) {
      // dropped: only the transfer counts
    }
    return { ok: res.statusCode >= 200 && res.statusCode < 300, ms: performance.now() - started };
  };
  const loop = async (until: number, times: number[] | null, failures: { errors: number; non2xx: number }) => {
    while (performance.now() < until) {
      try {
        const { ok, ms } = await once();
        if (!ok) failures.non2xx += 1;
        else times?.push(ms);
      } catch {
        failures.errors += 1;
      }
    }
  };
  try {
    const warm = performance.now() + 2000;
    await Promise.all(Array.from({ length: o.connections }, () => loop(warm, null, { errors: 0, non2xx: 0 })));
    const before = o.cpuMeters.map(([, read]) => read());
    const times: number[] = [];
    const failures = { errors: 0, non2xx: 0 };
    const started = performance.now();
    const end = started + o.durationS * 1000;
    await Promise.all(Array.from({ length: o.connections }, () => loop(end, times, failures)));
    const seconds = (performance.now() - started) / 1000;
    const cpu = o.cpuMeters.map(([, read], i) => read() - before[i]);
    times.sort((a, b) => a - b);
    const at = (p: number) => (times.length ? Math.round(times[Math.ceil(times.length * p) - 1] * 10) / 10 : 0);
    const total = times.length;
    return {
      scenario,
      url,
      connections: o.connections,
      durationS: o.durationS,
      requestsPerSec: Math.round((total / seconds) * 10) / 10,
      latencyP50Ms: at(0.5),
      latencyP95Ms: at(0.95),
      latencyP99Ms: at(0.99),
      latencyAvgMs: total ? Math.round((times.reduce((a, b) => a + b, 0) / total) * 100) / 100 : 0,
      totalRequests: total,
      errors: failures.errors,
      non2xx: failures.non2xx,
      cpuMsPerRequest: Object.fromEntries(
        o.cpuMeters.map(([name], i) => [name, Math.round((cpu[i] * 1e6) / Math.max(1, total)) / 1000]),
      ),
    };
  } finally {
    await agent.close();
  }
}

const START = '<!-- bench:attachment:start -->';
const END = '<!-- bench:attachment:end -->';

function section(report: AttachmentBenchReport): string {
  const hello = (connections: number) =>
    report.scenarios.find((s) => s.scenario === 'hello-world' && s.connections === connections);
  const rows = report.scenarios.map((s) => {
    const base = hello(s.connections);
    const ratio = base && s !== base ? `${((s.requestsPerSec / base.requestsPerSec) * 100).toFixed(3)} %` : '–';
    const cpu = s.cpuMsPerRequest
      ? ['gateway', 'attachment'].map((p) => (s.cpuMsPerRequest?.[p] ?? 0).toFixed(1)).join(' / ')
      : '–';
    return `| ${s.scenario} | ${s.connections} | ${s.requestsPerSec} | ${s.mibPerSec || '–'} | ${ratio} | ${s.latencyP50Ms} | ${s.latencyP99Ms} | ${cpu} | ${s.errors + s.non2xx} |`;
  });
  const m = report.machine;
  return [
    START,
    `## Attachments (latest run: ${report.date})`,
    '',
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}. Settings: ${Object.entries(
      report.settings,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}. Postgres, NATS, the parts and autocannon share these cores.`,
    '',
    `One file of ${report.fileBytes / MiB} MiB of random bytes, \`STORAGE_DRIVER=local\` (the data folder on the machine's disk).`,
    'An upload row posts the multipart form again and again (each one a new attachment: spooled, sniffed,',
    'stored, recorded with its event); a download row reads the same file whole. MiB/s counts the file only.',
    'Upload and download rows use an undici client that drops the bodies as they come (autocannon spent more',
    'CPU parsing 4 MiB answers than the parts did serving them); hello-world rows are autocannon as everywhere.',
    '"service only" rows skip the gateway (an identity token straight to the attachment service).',
    '',
    '| scenario | connections | req/s | MiB/s | req/s vs hello-world (same connections) | p50 ms | p99 ms | CPU ms per request (gateway / attachment) | errors |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Attachment service RSS: ${report.rssMiB.before} MiB before the rows, ${report.rssMiB.after} MiB right after them.`,
    '',
    ...extractionSection(report.extraction),
    'Run only these rows with `npm run bench -- --only=attachment` (`--extraction-pages=`, `--extraction-runs=`).',
    END,
  ].join('\n');
}

function extractionSection(e: ExtractionResult): string[] {
  return [
    `Text extraction (the service's worker thread, default limits: heap ${e.maxHeapMiB} MiB): a text PDF of ${e.pages} pages of`,
    `~${e.charsPerPage.toLocaleString('en')} characters (${(e.pdfBytes / 1024).toFixed(0)} KiB, ${e.textChars.toLocaleString('en')} characters of text, ${e.extractedChars.toLocaleString('en')} extracted) read ${e.runs} times one after another,`,
    'each run timed from starting the worker to its answer:',
    '',
    '| scenario | runs | median ms | pages/s (median) | runs ms | peak RSS growth MiB |',
    '|---|---|---|---|---|---|',
    `| extract text, ${e.pages}-page PDF | ${e.runs} | ${e.medianMs} | **${e.medianPagesPerSec}** | ${e.runMs.join(', ')} | ${e.peakRssGrowthMiB} |`,
    '',
    "Peak RSS growth: the bench process's RSS (the worker thread lives in it) sampled every 5 ms during a run, above",
    'its RSS just before; the highest of the runs.',
  ];
}

/** Writes the JSON result and replaces the attachment section of docs/PERFORMANCE.md. */
export function writeAttachmentReport(report: AttachmentBenchReport, resultsFile: string, markdownFile: string): void {
  writeResultAndSection(report, resultsFile, markdownFile, section(report), [START, END]);
}
