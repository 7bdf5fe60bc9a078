import { randomUUID } from 'node:crypto';
import type { Config } from '@wiki/config';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { createEnvelope } from '@wiki/events';
import { prepareDatabase } from '@wiki/service';
import { cleanupConfig, isolatedConfig, UNUSED_IDP } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPreparedStatements, type PreparedStatements } from '../src/db/prepared-statements.js';
import { documentService } from '../src/service.js';

/**
 * Title and content edits that arrive together are written as one statement (group commit):
 * each still gets its own answer and its own document.updated, a missing or archived document
 * fails only its own edit, and two edits of one document apply in the order they came. Real Postgres.
 */
let config: Config;
let pool: DatabasePool;
let prepared: PreparedStatements;
const userId = randomUUID();
const silent = { warn() {} };

beforeAll(async () => {
  config = isolatedConfig(UNUSED_IDP);
  await prepareDatabase(documentService, config);
  pool = await createDatabasePool(config.databaseUrls.document);
  prepared = createPreparedStatements(config.databaseUrls.document, silent);
});

afterAll(async () => {
  await prepared?.end();
  await pool?.end();
  if (config) await cleanupConfig(config);
});

async function insert(workspaceId: string, count: number): Promise<string[]> {
  const ids = await pool.anyFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO documents (workspace_id, title, owner_id, created_by, last_edited_by)
    SELECT ${workspaceId}, 'Page ' || n, ${userId}, ${userId}, ${userId} FROM generate_series(1, ${count}) n
    RETURNING id`);
  return [...ids];
}

const edit = (id: string, workspaceId: string, title: string, expectedRevision?: number) =>
  prepared.updateFields({
    id,
    actorId: userId,
    fields: { title },
    template: createEnvelope({ type: 'document.updated', actorId: userId, workspaceId, data: { changed: ['title'] } }),
    expectedRevision,
  });

const EventRow = z.object({ xid: z.string(), envelope: z.any() });

describe('edits written together', () => {
  it('answers each edit as its own, writes one event each, in fewer transactions than edits', async () => {
    const ws = randomUUID();
    const ids = await insert(ws, 21);
    const archived = ids.pop() as string;
    await pool.query(sql.unsafe`UPDATE documents SET is_archived = true, archive_root_id = id WHERE id = ${archived}`);
    const missing = randomUUID();
    const [first] = ids;

    // All in one burst: the two edits of `first` must apply in this order.
    const results = await Promise.all([
      ...ids.map((id, i) => edit(id, ws, `Edited ${i}`)),
      edit(missing, ws, 'Nowhere'),
      edit(archived, ws, 'Read-only'),
      edit(first, ws, 'Edited again'),
    ]);

    for (const [i, id] of ids.entries())
      expect(results[i]).toMatchObject({ outcome: 'updated', document: { id, title: `Edited ${i}` } });
    expect(results[ids.length]).toEqual({ outcome: 'missing' });
    expect(results[ids.length + 1]).toEqual({ outcome: 'archived' });
    expect(results[ids.length + 2]).toMatchObject({
      outcome: 'updated',
      document: { id: first, title: 'Edited again' },
    });

    const titles = await pool.anyFirst(sql.type(z.object({ title: z.string() }))`
      SELECT title FROM documents WHERE workspace_id = ${ws} ORDER BY position`);
    expect(titles).toEqual(['Edited again', ...ids.slice(1).map((_, i) => `Edited ${i + 1}`), 'Page 21']);

    const events = await pool.any(sql.type(EventRow)`
      SELECT xmin::text AS xid, envelope FROM event_outbox
      WHERE type = 'document.updated' AND envelope->>'workspaceId' = ${ws} ORDER BY seq`);
    expect(events).toHaveLength(ids.length + 1);
    const titlesOf = (id: string) => events.filter((e) => e.envelope.data.id === id).map((e) => e.envelope.data.title);
    expect(titlesOf(first)).toEqual(['Edited 0', 'Edited again']);
    for (const [i, id] of ids.entries()) if (i > 0) expect(titlesOf(id)).toEqual([`Edited ${i}`]);
    for (const e of events) expect(e.envelope.data).toMatchObject({ changed: ['title'], plainTextTruncated: false });
    // The 21 changes of different documents went in one or two statements, not one each.
    expect(new Set(events.map((e) => e.xid)).size).toBeLessThanOrEqual(3);
  });

  it('writes a burst of edits of one document in order, each its own revision and event, in one transaction', async () => {
    const ws = randomUUID();
    const [id] = await insert(ws, 1);
    // The first edit goes at once; the other 30 wait for it and then go together. Two of them
    // saw revision 30 (If-Match): exactly the first of those two changes the document.
    const results = await Promise.all([
      ...Array.from({ length: 29 }, (_, i) => edit(id, ws, `Burst ${i}`)),
      edit(id, ws, 'Expects 30', 30),
      edit(id, ws, 'Also expects 30', 30),
    ]);
    const revisions = results.map((r) => (r.outcome === 'updated' ? r.document.revision : r.outcome));
    expect(revisions).toEqual([...Array.from({ length: 30 }, (_, i) => i + 2), 'stale']);
    expect(results[30]).toEqual({ outcome: 'stale', current: 31 });
    for (const [i, r] of results.slice(0, 29).entries())
      expect(r).toMatchObject({ outcome: 'updated', document: { id, title: `Burst ${i}` } });

    const events = await pool.any(sql.type(EventRow)`
      SELECT xmin::text AS xid, envelope FROM event_outbox
      WHERE type = 'document.updated' AND envelope->>'workspaceId' = ${ws} ORDER BY seq`);
    expect(events.map((e) => e.envelope.data.revision)).toEqual(Array.from({ length: 30 }, (_, i) => i + 2));
    expect(events.at(-1)?.envelope.data.title).toBe('Expects 30');
    // The first edit alone, the 30 that waited in one transaction.
    expect(new Set(events.map((e) => e.xid)).size).toBe(2);
    const stored = await pool.one(sql.type(z.object({ title: z.string(), revision: z.number() }))`
      SELECT title, revision FROM documents WHERE id = ${id}`);
    expect(stored).toEqual({ title: 'Expects 30', revision: 31 });
  });

  it('fails only the bad edit of a burst: the others are written one by one after the rollback', async () => {
    const ws = randomUUID();
    const [id] = await insert(ws, 1);
    const tooLong = 'x'.repeat(501); // the title column holds 500: the statement fails
    const results = await Promise.allSettled([
      edit(id, ws, 'First'),
      edit(id, ws, 'Second'),
      edit(id, ws, tooLong),
      edit(id, ws, 'Fourth'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const stored = await pool.one(sql.type(z.object({ title: z.string(), revision: z.number() }))`
      SELECT title, revision FROM documents WHERE id = ${id}`);
    expect(stored).toEqual({ title: 'Fourth', revision: 4 });
  });
});
