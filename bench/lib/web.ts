// `npm run bench -- --only=web`: the web app's budget (issue 27 point 11): the JavaScript before the
// editor, a cold open of a document page to an editable editor, and a keystroke's way to a second
// browser. The platform runs in this process (as the browser tests run it) on free ports and
// throw-away databases; Chromium is Debian's (CHROMIUM_PATH).
import { loadavg } from 'node:os';
import { addMember, createWorkspace } from '@wiki/testing';
import { launchBrowser } from '../../web/test/helpers/browser.js';
import { startWebPlatform, WEB_DIST } from '../../web/test/helpers/platform.js';
import { type BenchReport, machineInfo, writeResultAndSection } from './report.js';
import { coldOpens, keystrokeLatencies, percentile } from './web-browser.js';
import { type BundleReport, measureBundle } from './web-bundle.js';

export interface WebBenchReport {
  date: string;
  machine: BenchReport['machine'];
  loadAverage: { atStart: number; atEnd: number };
  bundle: BundleReport;
  coldOpen: { runs: number; ms: number[]; medianMs: number; p95Ms: number };
  keystroke: { count: number; p50Ms: number; p95Ms: number; maxMs: number };
  targets: Array<{ target: string; measured: string; met: boolean }>;
}

export const WEB_BUDGET = { initialGzipKiB: 300, coldOpenMs: 1500, keystrokeP95Ms: 100 };

const PARAGRAPHS = [
  'A page of ordinary length: a few paragraphs, a heading and a list, as a team writes them.',
  'Everything on it is stored as blocks and joined live through the collaboration service.',
];

export async function benchWeb(options: {
  coldRuns: number;
  keystrokes: number;
  log: (message: string) => void;
}): Promise<WebBenchReport> {
  const { log } = options;
  const atStart = Math.round(loadavg()[0] * 100) / 100;
  const bundle = measureBundle(WEB_DIST);
  log(
    `web: ${Math.round(bundle.initialGzipBytes / 1024)} KiB gzipped before the editor, editor ${Math.round(bundle.editorGzipBytes / 1024)} KiB`,
  );

  // Every service the document page calls (the bell asks the notification service), so no request fails.
  const stack = await startWebPlatform(['workspace', 'document', 'collab', 'comment', 'notification', 'attachment'], {
    LOG_LEVEL: 'warn',
  });
  const browser = await launchBrowser();
  try {
    const owner = await stack.signIn('web-bench-a@example.com', 'Bench A');
    const other = await stack.signIn('web-bench-b@example.com', 'Bench B');
    const workspaceId = (await createWorkspace(stack, owner)).id;
    await addMember(stack, workspaceId, owner, other, 'EDITOR');
    const created = await stack.request<{ data: { id: string } }>('POST', '/api/v1/documents', {
      token: owner.token,
      body: {
        workspaceId,
        title: 'Budget page',
        content: PARAGRAPHS.map((text) => ({
          type: 'paragraph',
          props: {},
          content: [{ type: 'text', text, styles: {} }],
          children: [],
        })),
      },
    });
    if (created.status !== 201) throw new Error(`creating the document: ${created.status}`);
    const url = `${stack.gatewayUrl}/w/${workspaceId}/d/${created.body.data.id}`;

    log(`web: ${options.coldRuns} cold opens of the document page`);
    const ms = await coldOpens(browser, stack, owner.email, url, options.coldRuns);
    log(`web: cold opens (ms) ${ms.join(', ')}`);
    log(`web: ${options.keystrokes} keystrokes from one browser to another`);
    const latencies = await keystrokeLatencies(browser, stack, [owner.email, other.email], url, options.keystrokes);
    const coldOpen = { runs: ms.length, ms, medianMs: percentile(ms, 50), p95Ms: percentile(ms, 95) };
    const keystroke = {
      count: latencies.length,
      p50Ms: percentile(latencies, 50),
      p95Ms: percentile(latencies, 95),
      maxMs: Math.max(...latencies),
    };
    const initialKiB = Math.round((bundle.initialGzipBytes / 1024) * 10) / 10;
    return {
      date: new Date().toISOString(),
      machine: machineInfo(),
      loadAverage: { atStart, atEnd: Math.round(loadavg()[0] * 100) / 100 },
      bundle,
      coldOpen,
      keystroke,
      targets: [
        {
          target: `JavaScript before the editor loads ≤ ${WEB_BUDGET.initialGzipKiB} KB gzipped`,
          measured: `${initialKiB} KiB`,
          met: initialKiB <= WEB_BUDGET.initialGzipKiB,
        },
        {
          target: `cold open of a document page to an editable editor ≤ ${WEB_BUDGET.coldOpenMs / 1000} s`,
          measured: `median ${coldOpen.medianMs} ms, p95 ${coldOpen.p95Ms} ms`,
          met: coldOpen.p95Ms <= WEB_BUDGET.coldOpenMs,
        },
        {
          target: `a keystroke reaches a second browser ≤ ${WEB_BUDGET.keystrokeP95Ms} ms p95 (loopback)`,
          measured: `p50 ${keystroke.p50Ms} ms, p95 ${keystroke.p95Ms} ms`,
          met: keystroke.p95Ms <= WEB_BUDGET.keystrokeP95Ms,
        },
      ],
    };
  } finally {
    await browser.close();
    await stack.stop();
  }
}

const START = '<!-- bench:web:start -->';
const END = '<!-- bench:web:end -->';
const kib = (bytes: number) => (bytes / 1024).toFixed(1);

function section(report: WebBenchReport): string {
  const m = report.machine;
  const files = (label: string, list: BundleReport['initial']) =>
    list.map((f) => `| ${label} | ${f.file} | ${kib(f.bytes)} | ${kib(f.gzipBytes)} |`);
  return [
    START,
    `## The web app's budget (latest run: ${report.date})`,
    '',
    `\`npm run bench -- --only=web\` (bench/lib/web.ts). Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, Node ${m.node};`,
    `load average ${report.loadAverage.atStart} at the start and ${report.loadAverage.atEnd} at the end (the gateway,`,
    'the services, Postgres, NATS and Chromium share these cores).',
    '',
    '| target (issue 27 point 11) | measured | |',
    '|---|---|---|',
    ...report.targets.map((t) => `| ${t.target} | ${t.measured} | ${t.met ? 'met' : '**not met**'} |`),
    '',
    `Cold opens (ms, each in a fresh browser context: no cache): ${report.coldOpen.ms.join(', ')}. Keystrokes: ${report.keystroke.count},`,
    `p50 ${report.keystroke.p50Ms} ms, p95 ${report.keystroke.p95Ms} ms, slowest ${report.keystroke.maxMs} ms.`,
    '',
    '| loaded | file | KiB | KiB gzipped |',
    '|---|---|---|---|',
    ...files('before the editor', report.bundle.initial),
    ...files('the editor (lazy)', report.bundle.editor),
    `| **before the editor** | all | | **${kib(report.bundle.initialGzipBytes)}** |`,
    `| **the editor** | all | | **${kib(report.bundle.editorGzipBytes)}** |`,
    '',
    "How it is measured: the JavaScript before the editor is index.html's module script, its modulepreload links",
    "and their static imports, each gzipped (level 9); the editor is the document page's lazy",
    '`CollaborativeEditor` chunk and the files only it imports. A cold open is timed in the page from navigation',
    'start (performance.now()) until the contenteditable "Document content" is editable and the connection status',
    'says connected, signed in as the browser tests are (a seeded OIDC session). Keystrokes: one browser types',
    "x's one at a time into the editor, a second one (another person) notes each with a MutationObserver; both",
    'timestamps are performance.timeOrigin + now() of the same machine clock.',
    END,
  ].join('\n');
}

export function writeWebReport(report: WebBenchReport, resultsFile: string, markdownFile: string): void {
  writeResultAndSection(report, resultsFile, markdownFile, section(report), [START, END]);
}
