import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { createWorkspace, eventually, freePort, type SignedInUser, type Stack, signInNew } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivatePostgres, startPrivatePostgres } from '../../scripts/lib/private-postgres.js';
import { startPlatform } from '../platform.js';

/**
 * Postgres goes away under a load of reads and writes through the gateway (workspace and document
 * services on a private Postgres the test stops; the machine's shared one is never touched): once
 * cleanly (fast shutdown) and once as a crash (immediate). Every answer that is not a success is a
 * 503 SERVICE_UNAVAILABLE with Retry-After, never a 500; the document service's readiness turns
 * false and then true again; after the restart every write succeeds; every acknowledged write is
 * in the database, none twice; and every document's `document.created` event is in the stream
 * exactly once (the outbox).
 */
let postgres: PrivatePostgres;
let stack: Stack;
let owner: SignedInUser;
let workspaceId: string;
let pool: DatabasePool;

beforeAll(async () => {
  postgres = startPrivatePostgres(await freePort(), 200);
  stack = await startPlatform(['workspace', 'document'], { env: { PG_URL: postgres.url } });
  owner = await signInNew(stack, 'Outage Owner');
  workspaceId = (await createWorkspace(stack, owner)).id;
  pool = await createDatabasePool(stack.config.databaseUrls.document, { maximumPoolSize: 2 });
});

afterAll(async () => {
  await pool?.end().catch(() => undefined);
  await stack?.stop();
  postgres?.stop();
});

interface Answer {
  kind: 'create' | 'read' | 'list';
  status: number;
  retryAfter?: string;
  code?: string;
  requestId?: string;
  title?: string;
  id?: string;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Clients creating, reading and listing documents until stopped; every answer is kept. */
function startLoad(clients: number) {
  const answers: Answer[] = [];
  const acknowledged: string[] = [];
  let stopped = false;
  let next = 0;
  const one = async (): Promise<Answer> => {
    const n = next++;
    if (n % 2 === 0 || acknowledged.length === 0) {
      const title = `load-${n}`;
      const res = await stack.request('POST', '/api/v1/documents', {
        token: owner.token,
        body: { workspaceId, title },
      });
      if (res.status === 201) acknowledged.push(res.body.data.id);
      return { kind: 'create', title, id: res.body?.data?.id, ...outcome(res) };
    }
    if (n % 4 === 1) {
      const id = acknowledged[n % acknowledged.length];
      return {
        kind: 'read',
        ...outcome(await stack.request('GET', `/api/v1/documents/${id}`, { token: owner.token })),
      };
    }
    const res = await stack.request('GET', `/api/v1/documents?workspaceId=${workspaceId}`, { token: owner.token });
    return { kind: 'list', ...outcome(res) };
  };
  const loops = Array.from({ length: clients }, async () => {
    while (!stopped) {
      const answer = await one();
      answers.push(answer);
      // A client that met a refusal waits a little before its next request.
      if (answer.status >= 300) await pause(50);
    }
  });
  return {
    answers,
    acknowledged,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

function outcome(res: { status: number; headers: Record<string, string>; body: any }) {
  return {
    status: res.status,
    retryAfter: res.headers['retry-after'],
    code: res.body?.error?.code,
    requestId: res.body?.error?.requestId,
  };
}

/** The document service's readiness, asked every 100 ms until stopped. */
function watchReadiness() {
  const seen: Array<{ at: number; status: number; database?: string }> = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const at = Date.now();
      try {
        const res = await fetch(`${stack.serviceUrls.document}/health/ready`, { signal: AbortSignal.timeout(3_000) });
        const body = (await res.json()) as { checks?: Record<string, string> };
        seen.push({ at, status: res.status, database: body.checks?.database });
      } catch {
        seen.push({ at, status: 0 });
      }
      await pause(100);
    }
  })();
  return {
    seen,
    /** Resolves when readiness answered `status` (after `since`), with when it first did. */
    until(status: number, since: number, timeoutMs = 15_000): Promise<number> {
      return eventually(
        () => {
          const hit = seen.find((s) => s.at >= since && s.status === status);
          if (!hit) throw new Error(`readiness never answered ${status} since the change`);
          return hit.at;
        },
        { timeoutMs, intervalMs: 50 },
      );
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

async function documentRows(): Promise<Array<{ id: string; title: string }>> {
  const rows = await pool.any(
    sql.type(z.object({ id: z.string(), title: z.string() }))`
      SELECT id, title FROM documents WHERE workspace_id = ${workspaceId}`,
  );
  return [...rows];
}

/** document.created events of the stream, by document id: how many times each was published. */
async function createdEventsInStream(): Promise<Map<string, number>> {
  const nc = await connect({ servers: stack.config.natsUrl });
  try {
    const jsm = await jetstreamManager(nc);
    const { state } = await jsm.streams.info(stack.config.eventsStream);
    const counts = new Map<string, number>();
    for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
      const message = await jsm.streams.getMessage(stack.config.eventsStream, { seq }).catch(() => null);
      if (!message || message.subject !== `${stack.config.eventsPrefix}.document.created`) continue;
      const envelope = message.json<{ workspaceId: string; data: { id: string } }>();
      if (envelope.workspaceId !== workspaceId) continue;
      counts.set(envelope.data.id, (counts.get(envelope.data.id) ?? 0) + 1);
    }
    return counts;
  } finally {
    await nc.close();
  }
}

describe('Postgres stopped under load', () => {
  it('answers only 503 with Retry-After while it is down, recovers, and loses or doubles nothing', async () => {
    const readiness = watchReadiness();
    const load = startLoad(6);
    // Per outage, in ms: how long Postgres took to stop and to start, and when readiness followed
    // (from the moment the server was down, resp. accepting again; negative: before pg_ctl returned).
    const outages: Array<Record<string, number | string>> = [];
    try {
      await pause(1_500);
      for (const mode of ['fast', 'immediate'] as const) {
        const haltStarted = Date.now();
        await postgres.halt(mode);
        const stoppedAt = Date.now();
        const notReadyAt = await readiness.until(503, haltStarted);
        await pause(4_000);
        const resumeStarted = Date.now();
        await postgres.resume();
        const startedAt = Date.now();
        const readyAt = await readiness.until(200, resumeStarted);
        outages.push({
          mode,
          stopTookMs: stoppedAt - haltStarted,
          unreadyAfterStopMs: notReadyAt - stoppedAt,
          startTookMs: startedAt - resumeStarted,
          readyAfterStartMs: readyAt - startedAt,
        });
        await pause(2_000);
      }
    } finally {
      await load.stop();
      await readiness.stop();
    }

    // Every failed answer is a 503 with Retry-After and the error envelope; there were some.
    const failed = load.answers.filter((a) => a.status >= 300);
    const byStatus: Record<string, number> = {};
    for (const a of load.answers) byStatus[`${a.kind} ${a.status}`] = (byStatus[`${a.kind} ${a.status}`] ?? 0) + 1;
    console.log('answers', byStatus, 'outages', outages);
    expect(failed.length).toBeGreaterThan(0);
    for (const answer of failed) {
      expect(answer).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', requestId: expect.any(String) });
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    expect(load.answers.filter((a) => a.status >= 200 && a.status < 300).length).toBeGreaterThan(0);
    // The database check is what turned readiness false.
    expect(readiness.seen.some((s) => s.status === 503 && s.database === 'DOWN')).toBe(true);

    // After the restart, every write succeeds.
    for (let i = 0; i < 10; i++) {
      const title = `after-${i}`;
      const res = await stack.request('POST', '/api/v1/documents', {
        token: owner.token,
        body: { workspaceId, title },
      });
      expect(res.status).toBe(201);
      load.acknowledged.push(res.body.data.id);
    }

    // Every acknowledged write is there once; the rows nobody was told about are at most the writes
    // whose answer was a 503 (committed just as the connection broke).
    const rows = await documentRows();
    const ids = new Set(rows.map((r) => r.id));
    expect(new Set(rows.map((r) => r.title)).size).toBe(rows.length);
    for (const id of load.acknowledged) expect(ids.has(id)).toBe(true);
    const unacknowledged = rows.length - load.acknowledged.length;
    expect(unacknowledged).toBeGreaterThanOrEqual(0);
    expect(unacknowledged).toBeLessThanOrEqual(failed.filter((a) => a.kind === 'create').length);

    // Each document's event went out exactly once, and no event for a document that is not there.
    await eventually(
      async () => {
        const pending = await pool.oneFirst(
          sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM event_outbox WHERE sent_at IS NULL`,
        );
        expect(pending).toBe(0);
      },
      { timeoutMs: 20_000 },
    );
    const published = await createdEventsInStream();
    expect([...published.keys()].sort()).toEqual([...ids].sort());
    for (const [id, times] of published) expect({ id, times }).toEqual({ id, times: 1 });
  }, 120_000);

  it('describes the 503 in the OpenAPI of the routes that touch the database', async () => {
    const res = await fetch(`${stack.serviceUrls.document}/openapi.json`);
    const doc = (await res.json()) as { paths: Record<string, Record<string, { responses: Record<string, any> }>> };
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ at: `${method.toUpperCase()} ${path}`, op })),
    );
    expect(operations.length).toBeGreaterThan(5);
    for (const { at, op } of operations) {
      expect({ at, has503: '503' in op.responses }).toEqual({ at, has503: true });
      expect(op.responses['503'].headers?.['retry-after']?.schema).toEqual({ type: 'integer' });
    }
  });
});
