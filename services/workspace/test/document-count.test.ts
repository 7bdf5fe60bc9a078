import { randomUUID } from 'node:crypto';
import type { Config } from '@wiki/config';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { prepareDatabase } from '@wiki/service';
import { cleanupConfig, countingStatements, isolatedConfig, testEvent, UNUSED_IDP } from '@wiki/testing';
import { applyDocumentEvent, applyDocumentEvents, type DocumentCountEvent } from '../src/events/document-count.js';
import { workspaceService } from '../src/service.js';

/**
 * applyDocumentEvents against the real tables, without the bus: a batch of document.* events as the
 * consumer hands it over (in one transaction) must leave the same counts as the events one by one,
 * in fewer statements when neighbours change the same workspace the same way.
 */
let config: Config;
let pool: DatabasePool;
let ownerId: string;

beforeAll(async () => {
  config = isolatedConfig(UNUSED_IDP);
  const url = config.databaseUrls.workspace;
  await prepareDatabase(workspaceService, config);
  pool = await createDatabasePool(url);
  ownerId = await pool.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO users (email, name) VALUES (${`${randomUUID()}@example.com`}, 'Counter') RETURNING id`);
});

afterAll(async () => {
  await pool?.end();
  if (config) await cleanupConfig(config);
});

async function workspace(): Promise<string> {
  return pool.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO workspaces (name, owner_id) VALUES ('Counted', ${ownerId}) RETURNING id`);
}

const countOf = (workspaceId: string) =>
  pool.oneFirst(
    sql.type(z.object({ n: z.number() }))`SELECT document_count AS n FROM workspaces WHERE id = ${workspaceId}`,
  );

const counted = (workspaceId: string) =>
  pool.anyFirst(sql.type(z.object({ id: z.string() }))`
    SELECT document_id AS id FROM counted_documents WHERE workspace_id = ${workspaceId} ORDER BY document_id`);

function event(
  type: 'created' | 'deleted' | 'archived' | 'restored',
  workspaceId: string,
  data: { id: string; ids?: string[]; cascade?: boolean; isArchived?: boolean },
): DocumentCountEvent {
  return testEvent(`document.${type}`, { actorId: ownerId, data: { workspaceId, ...data } });
}

async function applyInOneTransaction(events: DocumentCountEvent[]): Promise<number> {
  return pool.transaction(async (tx) => {
    const c = countingStatements(tx);
    await applyDocumentEvents(events, c.db);
    return c.count();
  });
}

describe('applyDocumentEvents', () => {
  it('applies a mixed batch like the events one by one, merging neighbours that change one workspace the same way', async () => {
    const [ws1, ws2] = [await workspace(), await workspace()];
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const events = [
      event('created', ws1, { id: a }),
      event('created', ws1, { id: b }),
      event('archived', ws1, { id: a, ids: [a] }),
      event('restored', ws1, { id: a, ids: [a] }),
      event('created', ws2, { id: c }),
    ];
    // count ws1 [a, b] | uncount [a] | count ws1 [a] | count ws2 [c]
    expect(await applyInOneTransaction(events)).toBe(4);
    expect(await countOf(ws1)).toBe(2);
    expect(await countOf(ws2)).toBe(1);
    expect(await counted(ws1)).toEqual([a, b].sort());
    expect(await counted(ws2)).toEqual([c]);

    // The same events one by one, each in its transaction (as the consumer's fallback applies them).
    const [ws3, ws4] = [await workspace(), await workspace()];
    const [a2, b2, c2] = [randomUUID(), randomUUID(), randomUUID()];
    for (const e of [
      event('created', ws3, { id: a2 }),
      event('created', ws3, { id: b2 }),
      event('archived', ws3, { id: a2, ids: [a2] }),
      event('restored', ws3, { id: a2, ids: [a2] }),
      event('created', ws4, { id: c2 }),
    ]) {
      await pool.transaction((tx) => applyDocumentEvent(e, tx));
    }
    expect([await countOf(ws3), await countOf(ws4)]).toEqual([2, 1]);
  });

  it('keeps the order of counting and uncounting within a batch', async () => {
    const ws = await workspace();
    const [a, b] = [randomUUID(), randomUUID()];
    // Created then deleted: 0, not 1 (an uncount merged before the count would leave it counted).
    expect(
      await applyInOneTransaction([
        event('created', ws, { id: a }),
        event('deleted', ws, { id: a, ids: [a], cascade: false }),
      ]),
    ).toBe(2);
    expect(await countOf(ws)).toBe(0);
    expect(await counted(ws)).toEqual([]);

    // Archived before it was ever counted, then created: counted (the archive had nothing to remove).
    await applyInOneTransaction([event('archived', ws, { id: b, ids: [b] }), event('created', ws, { id: b })]);
    expect(await countOf(ws)).toBe(1);

    // Created, archived, restored, archived again: not counted.
    const d = randomUUID();
    await applyInOneTransaction([
      event('created', ws, { id: d }),
      event('archived', ws, { id: d, ids: [d] }),
      event('restored', ws, { id: d, ids: [d] }),
      event('archived', ws, { id: d, ids: [d] }),
    ]);
    expect(await countOf(ws)).toBe(1);
    expect(await counted(ws)).toEqual([b]);
  });

  it('merges a burst of creations into one statement and uncounts several workspaces in one', async () => {
    const [ws1, ws2] = [await workspace(), await workspace()];
    const ids = Array.from({ length: 30 }, () => randomUUID());
    const other = randomUUID();
    expect(await applyInOneTransaction(ids.map((id) => event('created', ws1, { id })))).toBe(1);
    expect(await countOf(ws1)).toBe(30);

    // The same creation twice in a batch (a republished event the consumer did not catch): counted once.
    expect(
      await applyInOneTransaction([event('created', ws2, { id: other }), event('created', ws2, { id: other })]),
    ).toBe(1);
    expect(await countOf(ws2)).toBe(1);

    // An event that does not change the count (an archived creation) neither counts nor splits a run.
    expect(
      await applyInOneTransaction([
        event('deleted', ws1, { id: ids[0], ids: ids.slice(0, 10), cascade: true }),
        event('archived', ws2, { id: other, ids: [other] }),
        event('created', ws1, { id: randomUUID(), isArchived: true }),
      ]),
    ).toBe(1);
    expect(await countOf(ws1)).toBe(20);
    expect(await countOf(ws2)).toBe(0);
    expect(await applyInOneTransaction([])).toBe(0);
  });
});
