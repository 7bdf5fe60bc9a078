import { randomUUID } from 'node:crypto';
import { sql, z } from '@wiki/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexedDocument, SearchEngine } from '../src/engines/engine.js';
import { createPostgresEngine } from '../src/engines/postgres.js';
import { pruneTombstones, TOMBSTONE_MAX_AGE_MS } from '../src/events/tombstone-pruner.js';
import { type CountedDatabase, countedSearchDatabase } from './counted-database.js';

/** Tombstones of deleted documents hold back late events, and leave once no event can be that late. Real Postgres. */
let version = Date.now();
const doc = (workspaceId: string, id: string = randomUUID()): IndexedDocument => ({
  id,
  workspaceId,
  parentId: null,
  title: 'Lighthouse',
  icon: null,
  plainText: 'The keeper writes in the log.',
  archived: false,
  createdBy: null,
  updatedAt: Date.parse('2026-01-01T00:00:00Z'),
  version: ++version,
});

describe('search tombstones', () => {
  let db: CountedDatabase;
  let engine: SearchEngine;
  const tombstones = () =>
    db.pool.anyFirst(sql.type(z.object({ id: z.string() }))`SELECT id FROM search_removed_documents ORDER BY id`);

  beforeAll(async () => {
    db = await countedSearchDatabase();
    engine = await createPostgresEngine({ pool: db.pool, reads: db.reads, tsConfig: 'simple' });
  });
  afterAll(() => db?.drop());

  it('prunes only tombstones older than the event horizon; a young one still refuses a late create', async () => {
    const workspaceId = randomUUID();
    const [old, young] = [doc(workspaceId), doc(workspaceId)];
    await engine.upsert([old, young]);
    await engine.remove([old.id, young.id]);
    const past = new Date(Date.now() - TOMBSTONE_MAX_AGE_MS - 60_000).toISOString();
    await db.pool.query(
      sql.unsafe`UPDATE search_removed_documents SET removed_at = ${past}::timestamptz WHERE id = ${old.id}`,
    );

    expect(await pruneTombstones(db.pool)).toBe(1);
    expect(await tombstones()).toEqual([young.id]);
    expect(await pruneTombstones(db.pool)).toBe(0);

    // A late create of the young one is still refused.
    await engine.upsert([doc(workspaceId, young.id)]);
    expect((await engine.search({ workspaceId, query: 'lighthouse', limit: 20 })).hits).toEqual([]);
  });

  it('prunes a backlog larger than one batch', async () => {
    const ids: string[] = Array.from({ length: 12_000 }, () => randomUUID());
    const past = new Date(Date.now() - TOMBSTONE_MAX_AGE_MS - 60_000).toISOString();
    await db.pool.query(sql.unsafe`
      INSERT INTO search_removed_documents (id, removed_at)
      SELECT unnest(${sql.array(ids, 'uuid')}), ${past}::timestamptz`);
    expect(await pruneTombstones(db.pool)).toBe(12_000);
    const left = new Set(await tombstones());
    expect(ids.filter((id) => left.has(id))).toEqual([]);
  });
});
