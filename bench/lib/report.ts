import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, platform, totalmem } from 'node:os';
import { dirname } from 'node:path';
import type { LoadResult } from './load.js';

export interface BenchReport {
  date: string;
  machine: { node: string; cpus: number; cpuModel: string; memoryGiB: number; platform: string };
  settings: Record<string, unknown>;
  seeding: { documents: number; seconds: number; documentsPerSec: number; cpuSeconds: Record<string, number> };
  scenarios: LoadResult[];
  rssMiB: {
    idleAfterStart: Record<string, number>;
    justAfterLoad: Record<string, number>;
    idleAfterLoad: Record<string, number>;
    idleAfterLoadS: number;
  };
  targets: Array<{ target: string; measured: string; met: boolean }>;
}

const START = '<!-- bench:document:start -->';
const END = '<!-- bench:document:end -->';

const HEADER = `# Performance

Measured with \`npm run bench\` (bench/run.ts): autocannon against the real processes (gateway,
services) on the local machine, always beside a bare Fastify hello-world started in the same run,
so that figures from different machines can be compared through their ratio to that baseline.
Raw results of every run are in \`bench/results/*.json\`.
`;

/** The machine a run was measured on, as every report records it. */
export function machineInfo(): BenchReport['machine'] {
  return {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    platform: platform(),
  };
}

/** The name suffix of a repeated hello-world/read round: none for the first. */
export const roundSuffix = (round: number) => (round === 1 ? '' : ` (round ${round})`);

function table(report: BenchReport): string {
  // A scenario of round k is compared with the hello-world of round k, the others with the first.
  const baselineOf = (scenario: string) => {
    const round = / \(round \d+\)$/.exec(scenario)?.[0] ?? '';
    return (report.scenarios.find((s) => s.scenario === `hello-world${round}`) ??
      report.scenarios.find((s) => s.scenario === 'hello-world'))!;
  };
  const rows = report.scenarios.map((s) => {
    const ratio = s.requestsPerSec / baselineOf(s.scenario).requestsPerSec;
    return `| ${s.scenario} | ${s.connections} | ${s.requestsPerSec} | ${(ratio * 100).toFixed(1)} % | ${s.latencyP50Ms} | ${s.latencyP99Ms} | ${s.errors + s.non2xx} |`;
  });
  const rss = Object.keys(report.rssMiB.idleAfterStart).map(
    (name) =>
      `| ${name} | ${report.rssMiB.idleAfterStart[name]} | ${report.rssMiB.justAfterLoad[name] ?? '–'} | ${report.rssMiB.idleAfterLoad[name] ?? '–'} |`,
  );
  const creations = report.scenarios.filter((s) => s.scenario === 'document creation' && s.cpuMsPerRequest);
  const partsOf = creations[0] ? Object.keys(creations[0].cpuMsPerRequest!) : [];
  const cpuRows = creations.map((s) => {
    const cpu = s.cpuMsPerRequest!;
    const total = Object.values(cpu).reduce((a, b) => a + b, 0);
    return `| ${s.connections} | ${s.requestsPerSec} | ${partsOf.map((p) => cpu[p].toFixed(3)).join(' | ')} | ${total.toFixed(3)} |`;
  });
  const targets = report.targets.map((t) => `| ${t.target} | ${t.measured} | ${t.met ? 'met' : '**not met**'} |`);
  const m = report.machine;
  return [
    START,
    `## Document service (latest run: ${report.date})`,
    '',
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}. Settings: ${Object.entries(
      report.settings,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}. Everything (Postgres, NATS, the parts and autocannon itself) shares these cores.`,
    '',
    '| scenario | connections | req/s | vs hello-world | p50 ms | p99 ms | errors |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...(creations.length > 0
      ? [
          'Document creation (POST /api/v1/documents through the gateway under 100 parents, sustained): CPU milliseconds per created',
          "document, per part, during the measured run (the events it causes included: outbox relay, NATS, the workspace's counter).",
          '',
          `| connections | documents/s | ${partsOf.join(' | ')} | all |`,
          `|---|---|${partsOf.map(() => '---|').join('')}---|`,
          ...cpuRows,
          '',
        ]
      : []),
    `Seeding: ${report.seeding.documents} documents created through the gateway (POST /api/v1/documents, ${report.settings.seedConcurrency} at a time) in ${report.seeding.seconds} s: **${report.seeding.documentsPerSec} documents/s**. CPU seconds used meanwhile: ${Object.entries(
      report.seeding.cpuSeconds,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
    '',
    `| part | RSS idle after start (MiB) | RSS 3 s after the load (MiB) | RSS idle ${report.rssMiB.idleAfterLoadS} s after the load (MiB) |`,
    '|---|---|---|---|',
    ...rss,
    '',
    "| target (developers' guide) | measured | |",
    '|---|---|---|',
    ...targets,
    '',
    'Scenarios: `document read` is GET /api/v1/documents/{id} with a bearer token through the gateway (JWT check, identity',
    'token, proxy, membership check, one query); `document read (service only)` is the same request straight to the',
    'document service with an identity token, to show what the gateway costs; `tree (10k)` is GET',
    `/api/v1/documents/tree of the workspace holding the 10,000 seeded documents (${report.settings.treeResponseBytes} bytes of JSON);`,
    '`service only` rows bypass the gateway; `document creation` creates documents in a second workspace, one 10 s run per',
    'connection count. `hello-world` and `document read` run alternately `readRounds` times (the later rounds are marked, each',
    "compared with its own hello-world); the read target is judged on the median of the rounds' ratios.",
    '`loadAverageAtStart` shows how busy the machine already was.',
    END,
  ].join('\n');
}

/** Writes the JSON result and replaces this benchmark's section of docs/PERFORMANCE.md. */
export function writeReport(report: BenchReport, resultsFile: string, markdownFile: string): void {
  writeResultAndSection(report, resultsFile, markdownFile, table(report), [START, END], HEADER);
}

/**
 * Writes a run's JSON to `resultsFile` and puts `section` (which starts with `markers[0]` and ends
 * with `markers[1]`) in place of the same markers' section of `markdownFile`, or at its end.
 */
export function writeResultAndSection(
  report: unknown,
  resultsFile: string,
  markdownFile: string,
  section: string,
  [startMarker, endMarker]: readonly [string, string],
  emptyDocument = '',
): void {
  mkdirSync(dirname(resultsFile), { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify(report, null, 2)}\n`);
  let doc = existsSync(markdownFile) ? readFileSync(markdownFile, 'utf8') : emptyDocument;
  const start = doc.indexOf(startMarker);
  const end = doc.indexOf(endMarker);
  doc =
    start !== -1 && end > start
      ? `${doc.slice(0, start)}${section}${doc.slice(end + endMarker.length)}`
      : `${doc.trimEnd()}\n\n${section}\n`;
  mkdirSync(dirname(markdownFile), { recursive: true });
  writeFileSync(markdownFile, doc);
}
