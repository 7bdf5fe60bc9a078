import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { type BenchReport, writeResultAndSection } from './report.js';

const FRAGMENT = 'document-store';
const TOKEN = /w(\d+)\./g;

export interface CollabBenchSettings {
  documents: number;
  editorsPerDocument: number;
  /** Keystrokes (one small insert each) per editor per second. */
  typingRate: number;
  durationS: number;
}

export interface CollabBenchReport {
  date: string;
  machine: BenchReport['machine'];
  settings: CollabBenchSettings & { loadAverageAtStart: number };
  connectSeconds: number;
  updatesSent: number;
  /** Deliveries to the other editors of a document (each update reaches editorsPerDocument - 1). */
  deliveries: { expected: number; received: number };
  fanOutMs: { p50: number; p95: number; p99: number; max: number };
  /** The collaboration server's RSS (MiB): idle, with one room open (BlockNote loaded), with all open, after they closed. */
  rssMiB: { idle: number; oneRoom: number; allRooms: number; afterClose: number };
  /** (allRooms - oneRoom) / (documents - 1), with its editors' connections: what an open document costs. */
  mibPerOpenDocument: number;
  /** CPU seconds per part while typing. */
  cpuSeconds: Record<string, number>;
  /** Documents whose stored content holds every token its editors typed, checked after the rooms closed. */
  storedComplete: { checked: number; complete: number };
}

export interface CollabBenchParts {
  gatewayUrl: string;
  token: string;
  workspaceId: string;
  collabRssMiB: () => number;
  cpuMeters: Array<[string, () => number]>;
  settings: CollabBenchSettings;
  log: (message: string) => void;
}

interface BenchEditor {
  doc: Y.Doc;
  provider: HocuspocusProvider;
  socket: HocuspocusProviderWebsocket;
  text: Y.XmlText | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10;
}

/** The first paragraph's text of a BlockNote document (blockGroup > blockContainer > paragraph > text). */
function firstText(doc: Y.Doc): Y.XmlText | null {
  const find = (node: Y.XmlElement | Y.XmlFragment): Y.XmlText | null => {
    for (const child of node.toArray()) {
      if (child instanceof Y.XmlText) return child;
      if (child instanceof Y.XmlElement) {
        const found = find(child);
        if (found) return found;
      }
    }
    return null;
  };
  return find(doc.getXmlFragment(FRAGMENT));
}

function connect(url: string, name: string, token: string): BenchEditor {
  const socket = new HocuspocusProviderWebsocket({
    url,
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    autoConnect: false,
  });
  const doc = new Y.Doc();
  const provider = new HocuspocusProvider({ websocketProvider: socket, name, document: doc, token });
  provider.attach();
  socket.connect().catch(() => undefined);
  return { doc, provider, socket, text: null };
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`collab bench: ${what} within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/**
 * `documents` documents with `editorsPerDocument` Hocuspocus providers each, all through the
 * gateway's /collab, every editor typing `typingRate` small inserts a second into the same
 * paragraph. Fan-out: from an insert on one editor to its arrival at each other editor of the
 * document (one clock: every editor lives in this process). Memory: the collaboration server's RSS
 * with one room open and with all open.
 */
export async function benchCollab(parts: CollabBenchParts): Promise<Omit<CollabBenchReport, 'date' | 'machine'>> {
  const { gatewayUrl, token, workspaceId, settings, log } = parts;
  const wsUrl = `${gatewayUrl.replace(/^http/, 'ws')}/collab`;
  const idle = parts.collabRssMiB();

  log(`collab: creating ${settings.documents} documents`);
  const ids: string[] = [];
  for (let i = 0; i < settings.documents; i += 1) {
    const res = await fetch(`${gatewayUrl}/api/v1/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        workspaceId,
        title: `Collab ${i}`,
        content: [{ type: 'paragraph', content: [{ type: 'text', text: 'start ', styles: {} }] }],
      }),
    });
    if (res.status !== 201) throw new Error(`collab bench: create answered ${res.status}`);
    ids.push(((await res.json()) as { data: { id: string } }).data.id);
  }

  const sent = new Map<number, number>();
  const latencies: number[] = [];
  let received = 0;
  const observe = (editor: BenchEditor) => {
    editor.text = firstText(editor.doc);
    editor.text?.observe((event) => {
      if (event.transaction.origin !== editor.provider) return;
      const now = performance.now();
      for (const op of event.delta) {
        if (typeof op.insert !== 'string') continue;
        for (const match of op.insert.matchAll(TOKEN)) {
          const at = sent.get(Number(match[1]));
          if (at !== undefined) {
            latencies.push(now - at);
            received += 1;
          }
        }
      }
    });
  };

  const started = performance.now();
  const rooms: BenchEditor[][] = [];
  const first = [connect(wsUrl, ids[0]!, token)];
  rooms.push(first);
  await until(() => first[0]!.provider.isSynced, 30_000, 'the first room did not open');
  await sleep(1000);
  const oneRoom = parts.collabRssMiB();
  for (let d = 0; d < ids.length; d += 1) {
    const room = d === 0 ? first : [];
    while (room.length < settings.editorsPerDocument) room.push(connect(wsUrl, ids[d]!, token));
    if (d > 0) rooms.push(room);
    // A few rooms at a time: every connection is a token check and a permission check.
    if (d % 10 === 9) await until(() => room.every((e) => e.provider.isSynced), 60_000, 'editors did not sync');
  }
  const editors = rooms.flat();
  await until(() => editors.every((e) => e.provider.isSynced), 120_000, 'every editor did not sync');
  const connectSeconds = Math.round((performance.now() - started) / 100) / 10;
  for (const editor of editors) observe(editor);
  log(`collab: ${editors.length} editors synced in ${connectSeconds} s`);
  await sleep(2000);
  const allRooms = parts.collabRssMiB();

  // Typing: every editor inserts " w<n>." at the end of the paragraph, spread over the second.
  let seq = 0;
  let updatesSent = 0;
  const cpuBefore = parts.cpuMeters.map(([, meter]) => meter());
  const intervalMs = 1000 / settings.typingRate;
  const timers = editors.map((editor, i) =>
    setTimeout(() => {
      const timer = setInterval(() => {
        const text = editor.text ?? firstText(editor.doc);
        if (!text) return;
        editor.text = text;
        seq += 1;
        sent.set(seq, performance.now());
        text.insert(text.length, ` w${seq}.`);
        updatesSent += 1;
      }, intervalMs);
      timers[i] = timer;
    }, Math.random() * intervalMs),
  );
  await sleep(settings.durationS * 1000);
  for (const timer of timers) clearInterval(timer);
  const expected = updatesSent * (settings.editorsPerDocument - 1);
  await until(() => received >= expected, 30_000, 'not every update reached every editor').catch((e) => log(String(e)));
  const cpuSeconds = Object.fromEntries(
    parts.cpuMeters.map(([name, meter], i) => [name, Math.round((meter() - cpuBefore[i]!) * 10) / 10]),
  );

  // The rooms close (each stores its last state), then the stored content must hold every token.
  const typed = rooms.map((room) => firstText(room[0]!.doc)?.toString() ?? '');
  for (const editor of editors) {
    editor.provider.destroy();
    editor.socket.destroy();
  }
  await sleep(3000);
  let complete = 0;
  const checked = Math.min(ids.length, 20);
  for (let d = 0; d < checked; d += 1) {
    const res = await fetch(`${gatewayUrl}/api/v1/documents/${ids[d]}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const content = ((await res.json()) as { data: { content: string } }).data.content;
    const tokens = [...(typed[d] ?? '').matchAll(TOKEN)].map((m) => m[0]);
    if (tokens.every((t) => content.includes(t))) complete += 1;
  }
  const afterClose = parts.collabRssMiB();

  const sorted = latencies.sort((a, b) => a - b);
  return {
    settings: { ...settings, loadAverageAtStart: 0 },
    connectSeconds,
    updatesSent,
    deliveries: { expected, received },
    fanOutMs: {
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
      p99: percentile(sorted, 99),
      max: Math.round((sorted.at(-1) ?? 0) * 10) / 10,
    },
    rssMiB: { idle, oneRoom, allRooms, afterClose },
    mibPerOpenDocument: Math.round(((allRooms - oneRoom) / Math.max(1, settings.documents - 1)) * 100) / 100,
    cpuSeconds,
    storedComplete: { checked, complete },
  };
}

const START = '<!-- bench:collab:start -->';
const END = '<!-- bench:collab:end -->';

function section(report: CollabBenchReport): string {
  const m = report.machine;
  const s = report.settings;
  return [
    START,
    `## Collaboration (latest run: ${report.date})`,
    '',
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}. Postgres, NATS, the parts and`,
    `the ${s.documents * s.editorsPerDocument} editors (Hocuspocus providers in the bench process) share these cores; load average at start ${s.loadAverageAtStart}.`,
    '',
    `${s.documents} documents × ${s.editorsPerDocument} editors, all through the gateway's \`/collab\`, one collaboration replica;`,
    `every editor types ${s.typingRate} small inserts a second into the same paragraph for ${s.durationS} s. Fan-out is the time`,
    'from an insert on one editor to its arrival at each other editor of the document.',
    '',
    '| measure | value |',
    '|---|---|',
    `| editors connected and synced | ${s.documents * s.editorsPerDocument} in ${report.connectSeconds} s |`,
    `| updates typed | ${report.updatesSent} (${Math.round(report.updatesSent / s.durationS)}/s) |`,
    `| deliveries to the other editors | ${report.deliveries.received} of ${report.deliveries.expected} |`,
    `| fan-out p50 / p95 / p99 / max | ${report.fanOutMs.p50} / ${report.fanOutMs.p95} / ${report.fanOutMs.p99} / ${report.fanOutMs.max} ms |`,
    `| collab RSS idle / one room / all rooms / after they closed | ${report.rssMiB.idle} / ${report.rssMiB.oneRoom} / ${report.rssMiB.allRooms} / ${report.rssMiB.afterClose} MiB |`,
    `| memory per open document (with its ${s.editorsPerDocument} connections) | ${report.mibPerOpenDocument} MiB |`,
    `| CPU seconds while typing | ${Object.entries(report.cpuSeconds)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')} |`,
    `| stored content complete after the rooms closed | ${report.storedComplete.complete} of ${report.storedComplete.checked} documents checked |`,
    '',
    'BlockNote\'s headless converter (Y.Doc ⇄ blocks) is loaded half a second after the server is up: "idle" holds it once that has run.',
    'Run only these rows with `npm run bench -- --only=collab` (`--collab-documents`, `--collab-editors`, `--collab-rate`).',
    END,
  ].join('\n');
}

/** Writes the JSON result and replaces the collaboration section of docs/PERFORMANCE.md. */
export function writeCollabReport(report: CollabBenchReport, resultsFile: string, markdownFile: string): void {
  writeResultAndSection(report, resultsFile, markdownFile, section(report), [START, END]);
}
