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

const edit = (id: string, workspaceId: string, title: string) =>
  prepared.updateFields({
    id,
    actorId: userId,
    fields: { title },
    template: createEnvelope({ type: 'document.updated', actorId: userId, workspaceId, data: { changed: ['title'] } }),
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
});
