import { paragraphWithId } from '@wiki/testing';
import type { RequestSpec } from 'autocannon';
import { type Api, call, retitling } from './endpoints.js';
import { type CpuMeter, type LoadResult, load } from './load.js';
import { type BenchReport, writeResultAndSection } from './report.js';
import { creationBody } from './seed.js';

/**
 * Document history (issue 26 point 6), through the gateway: title edits with history on (the
 * default interval, and every change a revision) and off, alternately in rounds and each beside a
 * hello-world at the same connection count; a page of a document's 1,000 revisions (newest and
 * oldest page); the diff of a 2,000-block document against its current revision; restores.
 */

export type HistoryMode = 'on' | 'on, every change' | 'off';
const MODE_ENV: Record<HistoryMode, Record<string, string>> = {
  on: { REVISION_HISTORY: 'on', REVISION_INTERVAL_S: '300' },
  'on, every change': { REVISION_HISTORY: 'on', REVISION_INTERVAL_S: '0' },
  off: { REVISION_HISTORY: 'off' },
};

export interface HistoryBenchOptions {
  api: Api;
  helloUrl: string;
  workspaceId: string;
  connections: number[];
  durationS: number;
  rounds: number;
  /** Restarts the document service with these settings (its other settings as the run's). */
  restartDocument(env: Record<string, string>): Promise<void>;
  cpuMeters: CpuMeter[];
  log(message: string): void;
}

export interface EditRow {
  mode: HistoryMode;
  round: number;
  hello: LoadResult;
  edit: LoadResult;
  /** The edit's req/s over the hello-world's just before it. */
  share: number;
}

export interface HistoryBenchReport {
  date: string;
  machine: BenchReport['machine'];
  settings: Record<string, unknown>;
  edits: EditRow[];
  /** Per connection count: the median share of each mode, and what history on costs against off. */
  editCost: Array<{ connections: number; shares: Record<HistoryMode, number>; costOfHistory: number }>;
  reads: Array<{ hello: LoadResult; row: LoadResult; share: number }>;
  targets: Array<{ target: string; measured: string; met: boolean }>;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

interface RevisionSummary {
  id: string;
  revision: number;
}

const revisionsOf = async (api: Api, documentId: string) =>
  (
    await call<{ data: { content: RevisionSummary[] } }>(
      api,
      'GET',
      `/api/v1/documents/${documentId}/revisions?size=100`,
    )
  ).data.content;

/** 2,000 paragraphs, then the same with 100 changed, 20 removed, 20 added and 10 moved. */
function twoThousandBlocks(): { before: unknown[]; after: unknown[] } {
  const before = Array.from({ length: 2000 }, (_, i) =>
    paragraphWithId(`b${i}`, `Paragraph ${i}: the quick brown fox jumps over the lazy dog near the river bank.`),
  );
  const after = before.map((b, i) =>
    i % 20 === 0
      ? paragraphWithId(`b${i}`, `Paragraph ${i}: the quick red fox walks past the sleeping dog by the river.`)
      : b,
  );
  const kept = after.filter((_, i) => i % 100 !== 7);
  const moved = kept.splice(500, 10);
  kept.splice(1500, 0, ...moved);
  for (let i = 0; i < 20; i++) kept.splice(i * 90, 0, paragraphWithId(`new${i}`, `An added paragraph number ${i}.`));
  return { before, after: kept };
}

export async function benchHistory(opts: HistoryBenchOptions): Promise<Omit<HistoryBenchReport, 'date' | 'machine'>> {
  const { api, log } = opts;
  const run = async (
    scenario: string,
    url: string,
    connections: number,
    more: Parameters<typeof load>[2]['autocannon'] = {},
  ) => {
    const result = await load(scenario, url, {
      connections,
      durationS: opts.durationS,
      headers: url.startsWith(opts.helloUrl) ? undefined : { authorization: `Bearer ${api.token}` },
      autocannon: more,
      cpuMeters: opts.cpuMeters,
      samples: true,
    });
    log(
      `${scenario} at ${connections}: ${result.requestsPerSec} req/s, p50 ${result.latencyP50Ms} ms, errors ${result.errors + result.non2xx}`,
    );
    return result;
  };

  // Title edits: 50 documents, each connection starting at its own place in the list.
  const retitled: string[] = [];
  for (let i = 0; i < 50; i++) {
    retitled.push(
      (
        await call<{ data: { id: string } }>(
          api,
          'POST',
          '/api/v1/documents',
          creationBody(opts.workspaceId, `Edited ${i}`, null),
        )
      ).data.id,
    );
  }
  // Rounds of the three modes, the order turning each round so that a drift of the machine (its
  // speed swings by tens of per cent here) does not always favour one mode; the cost of history is
  // the median over rounds of on against off in the same round, raw rates side by side, which a
  // hello-world measured at another moment cannot blur.
  const modes = Object.keys(MODE_ENV) as HistoryMode[];
  const edits: EditRow[] = [];
  for (let round = 1; round <= opts.rounds; round++) {
    const hellos = new Map<number, LoadResult>();
    for (const connections of opts.connections)
      hellos.set(connections, await run('hello-world', `${opts.helloUrl}/`, connections));
    const order = modes.map((_, i) => modes[(i + round - 1) % modes.length]);
    for (const mode of order) {
      await opts.restartDocument(MODE_ENV[mode]);
      for (const connections of opts.connections) {
        const hello = hellos.get(connections) as LoadResult;
        const edit = await run(
          `PUT title, history ${mode}`,
          `${api.gatewayUrl}/api/v1/documents`,
          connections,
          retitling(api.token, retitled, connections),
        );
        edits.push({ mode, round, hello, edit, share: edit.requestsPerSec / hello.requestsPerSec });
      }
    }
  }
  const rateOf = (mode: HistoryMode, round: number, connections: number) =>
    (edits.find((e) => e.mode === mode && e.round === round && e.edit.connections === connections) as EditRow).edit
      .requestsPerSec;
  const editCost = opts.connections.map((connections) => {
    const shares = Object.fromEntries(
      modes.map((mode) => [
        mode,
        median(edits.filter((e) => e.mode === mode && e.edit.connections === connections).map((e) => e.share)),
      ]),
    ) as Record<HistoryMode, number>;
    const rounds = Array.from({ length: opts.rounds }, (_, i) => i + 1);
    const costOfHistory = median(rounds.map((r) => 1 - rateOf('on', r, connections) / rateOf('off', r, connections)));
    return { connections, shares, costOfHistory };
  });

  // Reads of history, every change a revision.
  await opts.restartDocument(MODE_ENV['on, every change']);
  log('history: a document with 1,000 revisions');
  const long = (
    await call<{ data: { id: string } }>(
      api,
      'POST',
      '/api/v1/documents',
      creationBody(opts.workspaceId, 'Long history', null),
    )
  ).data.id;
  for (let i = 2; i <= 1000; i++) await call(api, 'PUT', `/api/v1/documents/${long}`, { title: `Long history ${i}` });

  log('history: a document of 2,000 blocks and a second revision of it');
  const { before, after } = twoThousandBlocks();
  const big = (
    await call<{ data: { id: string } }>(api, 'POST', '/api/v1/documents', {
      workspaceId: opts.workspaceId,
      title: 'Two thousand blocks',
      content: before,
    })
  ).data.id;
  await call(api, 'PUT', `/api/v1/documents/${big}`, { content: after });
  const first = (await revisionsOf(api, big)).find((r) => r.revision === 1);
  if (!first) throw new Error('the 2,000-block document has no first revision');

  // Restores: per connection its own document with two revisions, restored in turn.
  const restoreConnections = Math.min(...opts.connections);
  const restorable: Array<{ id: string; revisions: string[] }> = [];
  for (let i = 0; i < restoreConnections; i++) {
    const id = (
      await call<{ data: { id: string } }>(
        api,
        'POST',
        '/api/v1/documents',
        creationBody(opts.workspaceId, `Restored ${i}`, null),
      )
    ).data.id;
    await call(api, 'PUT', `/api/v1/documents/${id}`, {
      title: `Restored ${i}, second`,
      content: [paragraphWithId(`r${i}`, 'second text')],
    });
    restorable.push({ id, revisions: (await revisionsOf(api, id)).map((r) => r.id) });
  }
  let nextClient = 0;
  const restoring = {
    setupClient: (client: { setRequests(requests: RequestSpec[]): void }) => {
      const { id, revisions } = restorable[nextClient++ % restorable.length];
      client.setRequests(
        revisions.map((revisionId) => ({
          method: 'POST',
          path: `/api/v1/documents/${id}/revisions/${revisionId}/restore`,
          headers: { authorization: `Bearer ${api.token}` },
        })),
      );
    },
  };

  const reads: HistoryBenchReport['reads'] = [];
  const beside = async (row: () => Promise<LoadResult>, connections: number) => {
    const hello = await run('hello-world', `${opts.helloUrl}/`, connections);
    const measured = await row();
    reads.push({ hello, row: measured, share: measured.requestsPerSec / hello.requestsPerSec });
    return measured;
  };
  const g = api.gatewayUrl;
  const newest = await beside(
    () => run('revisions of 1,000: newest page of 20', `${g}/api/v1/documents/${long}/revisions?page=0&size=20`, 10),
    10,
  );
  await beside(
    () => run('revisions of 1,000: oldest page of 20', `${g}/api/v1/documents/${long}/revisions?page=49&size=20`, 10),
    10,
  );
  const diff = await beside(
    () =>
      run(
        'diff of 2,000 blocks against current',
        `${g}/api/v1/documents/${big}/revisions/${first.id}/diff?against=current`,
        1,
      ),
    1,
  );
  const restore = await beside(
    () => run('restore (a document of its own per connection)', `${g}/api/v1/documents`, restoreConnections, restoring),
    restoreConnections,
  );

  const targets = [
    ...editCost.map((c) => ({
      target: `title edits with history on cost at most 10 % of the edit rate (${c.connections} connections)`,
      measured: `${(c.costOfHistory * 100).toFixed(1)} % (median over rounds of on against off in the same round); shares of hello-world: on ${(c.shares.on * 100).toFixed(2)} %, off ${(c.shares.off * 100).toFixed(2)} %, every change a revision ${(c.shares['on, every change'] * 100).toFixed(2)} %`,
      met: c.costOfHistory <= 0.1,
    })),
    {
      target: 'diff of a 2,000-block document p50 < 50 ms (1 connection)',
      measured: `${diff.latencyP50Ms} ms`,
      met: diff.latencyP50Ms < 50 && diff.errors + diff.non2xx === 0,
    },
  ];
  log(`history: listing p50 ${newest.latencyP50Ms} ms, restore ${restore.requestsPerSec} req/s`);
  return {
    settings: { durationS: opts.durationS, rounds: opts.rounds, connections: opts.connections.join(',') },
    edits,
    editCost,
    reads,
    targets,
  };
}

const START = '<!-- bench:history:start -->';
const END = '<!-- bench:history:end -->';

function section(report: HistoryBenchReport): string {
  const pct = (share: number) => `${(share * 100).toFixed(2)} %`;
  const m = report.machine;
  return [
    START,
    `## Document history (latest run: ${report.date})`,
    '',
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}. Settings: ${Object.entries(
      report.settings,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}. Postgres, NATS, the parts and autocannon share these cores.`,
    '',
    'Title edits (PUT /api/v1/documents/{id}, 50 documents) with history on (REVISION_INTERVAL_S=300: an author’s',
    'edits fold into one revision), on with every change a revision (0), and off, the document service restarted',
    'for each mode and warmed up for 2 s; each round measures a hello-world at both connection counts, then the',
    'three modes in an order that turns every round. The cost of history is the median over rounds of 1 − on/off',
    'in the same round (raw rates side by side); the shares of hello-world are medians too.',
    '',
    '| mode | round | connections | req/s | vs hello-world | p50 ms | p99 ms | errors |',
    '|---|---|---|---|---|---|---|---|',
    ...report.edits.map(
      (e) =>
        `| ${e.mode} | ${e.round} | ${e.edit.connections} | ${e.edit.requestsPerSec} | ${pct(e.share)} | ${e.edit.latencyP50Ms} | ${e.edit.latencyP99Ms} | ${e.edit.errors + e.edit.non2xx} |`,
    ),
    '',
    '| history read or write | connections | req/s | vs hello-world | p50 ms | p95 ms | p99 ms | errors |',
    '|---|---|---|---|---|---|---|---|',
    ...report.reads.map(
      ({ row, share }) =>
        `| ${row.scenario} | ${row.connections} | ${row.requestsPerSec} | ${pct(share)} | ${row.latencyP50Ms} | ${row.latencyP95Ms ?? '–'} | ${row.latencyP99Ms} | ${row.errors + row.non2xx} |`,
    ),
    '',
    '| target (issue 26 point 6) | measured | |',
    '|---|---|---|',
    ...report.targets.map((t) => `| ${t.target} | ${t.measured} | ${t.met ? 'met' : '**not met**'} |`),
    '',
    'The diff compares the first revision of a 2,000-paragraph document with the current one (100 paragraphs',
    'changed, 20 removed, 20 added, 10 moved). Restores alternate between two revisions of a document of each',
    'connection’s own, so each one changes the document. Run these rows alone with `npm run bench -- --only=history`',
    '(`--history-rounds=3`).',
    END,
  ].join('\n');
}

/** Writes the JSON result and replaces the history section of docs/PERFORMANCE.md. */
export function writeHistoryReport(report: HistoryBenchReport, resultsFile: string, markdownFile: string): void {
  writeResultAndSection(report, resultsFile, markdownFile, section(report), [START, END]);
}
