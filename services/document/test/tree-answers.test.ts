import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { Config } from '@wiki/config';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { prepareDatabase } from '@wiki/service';
import { cleanupConfig, countingStatements, isolatedConfig, UNUSED_IDP } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { treeVersion } from '../src/db/documents.js';
import { acceptsGzip, rememberedTrees as treesOn } from '../src/queries/tree-answers.js';
import { documentService } from '../src/service.js';

/**
 * Tree answers are remembered until the workspace's documents change, on every replica: two
 * rememberedTrees over one database stand for two replicas. Writes go straight to the table, as
 * any path (REST, collab, consumers, a batch insert) would. Real Postgres.
 */
let config: Config;
let pool: DatabasePool;
const userId = randomUUID();

beforeAll(async () => {
  config = isolatedConfig(UNUSED_IDP);
  await prepareDatabase(documentService, config);
  pool = await createDatabasePool(config.databaseUrls.document);
});

afterAll(async () => {
  await pool?.end();
  if (config) await cleanupConfig(config);
});

/** A replica's trees, reading the version with a statement on `db` (the app shares one prepared read). */
const rememberedTrees = (db: typeof pool, maxBytes?: number) =>
  treesOn(db, (workspaceId) => treeVersion(db, workspaceId), maxBytes);

const titlesOf = (body: Buffer) => (JSON.parse(body.toString()).data as { title: string }[]).map((n) => n.title);
const titles = ({ body }: { body: Buffer }) =>
  (JSON.parse(body.toString()).data as { title: string }[]).map((n) => n.title);

async function insert(workspaceId: string, ...names: string[]): Promise<string[]> {
  const ids = await pool.anyFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO documents (workspace_id, title, owner_id, created_by, last_edited_by)
    SELECT ${workspaceId}, t, ${userId}, ${userId}, ${userId} FROM unnest(${sql.array(names, 'text')}) t RETURNING id`);
  return [...ids];
}

describe('remembered tree answers', () => {
  it('reuses an answer with one small statement until a write to the workspace, on any replica', async () => {
    const [ws, other] = [randomUUID(), randomUUID()];
    const counted = countingStatements(pool);
    const replicaA = rememberedTrees(counted.db);
    const replicaB = rememberedTrees(pool);
    expect(titles(await replicaA(ws))).toEqual([]);
    const [first] = await insert(ws, 'First', 'Second');

    const built = (await replicaA(ws)).body;
    expect(titles({ body: built })).toEqual(['First', 'Second']);
    counted.reset();
    expect((await replicaA(ws)).body).toBe(built); // the same bytes, not rebuilt
    expect(counted.count()).toBe(1);
    expect(titles(await replicaB(ws))).toEqual(['First', 'Second']);

    // Another workspace's write changes nothing here.
    await insert(other, 'Elsewhere');
    expect((await replicaA(ws)).body).toBe(built);

    // Every kind of write is seen at once by both replicas.
    await pool.query(sql.unsafe`UPDATE documents SET title = 'Renamed' WHERE id = ${first}`);
    expect(titles(await replicaA(ws))).toEqual(['Renamed', 'Second']);
    expect(titles(await replicaB(ws))).toEqual(['Renamed', 'Second']);
    await pool.query(sql.unsafe`UPDATE documents SET is_archived = true, archive_root_id = id WHERE id = ${first}`);
    expect(titles(await replicaB(ws))).toEqual(['Second']);
    expect(titles(await replicaA(ws))).toEqual(['Second']);
    await pool.query(sql.unsafe`DELETE FROM documents WHERE workspace_id = ${ws}`);
    expect(titles(await replicaA(ws))).toEqual([]);
    expect(titles(await replicaB(ws))).toEqual([]);
  });

  it('keeps no more bytes than it is given', async () => {
    const ws = randomUUID();
    await insert(ws, 'Only');
    const counted = countingStatements(pool);
    const tiny = rememberedTrees(counted.db, 10); // smaller than any answer: nothing is kept
    const first = (await tiny(ws)).body;
    counted.reset();
    const second = (await tiny(ws)).body;
    expect(second).not.toBe(first);
    expect(second.equals(first)).toBe(true);
    expect(counted.count()).toBe(2); // the version read, and the tree built again
  });

  it('keeps a large answer gzipped too, made once per version', async () => {
    const ws = randomUUID();
    await insert(ws, ...Array.from({ length: 400 }, (_, i) => `A page of the gzip test ${i}`));
    const trees = rememberedTrees(pool);
    const plain = await trees(ws);
    expect(plain.gzipped).toBe(false);
    const zipped = await trees(ws, true);
    expect(zipped.gzipped).toBe(true);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 4);
    expect((await trees(ws, true)).body).toBe(zipped.body); // not compressed again
    await insert(ws, 'One more');
    const after = await trees(ws, true);
    expect(titlesOf(gunzipSync(after.body))).toContain('One more');
  });

  it('lets writers of one workspace commit without waiting on each other; each write still moves the version', async () => {
    const ws = randomUUID();
    const [a, b] = await insert(ws, 'A', 'B');
    const before = await treeVersion(pool, ws);
    const xactShard = sql.type(
      z.object({ shard: z.number() }),
    )`SELECT (pg_current_xact_id()::text::bigint % 64)::int AS shard`;
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: (shard: number) => void;
    const firstShard = new Promise<number>((resolve) => {
      entered = resolve;
    });
    // The first writer changes A and keeps its transaction open.
    const first = pool.transaction(async (tx) => {
      await tx.query(sql.unsafe`UPDATE documents SET title = 'A2' WHERE id = ${a}`);
      entered(await tx.oneFirst(xactShard));
      await held;
    });
    try {
      const shardOfFirst = await firstShard;
      // The second changes B meanwhile, and must not wait for the first. With one version row per
      // workspace it waited for the first's lock (lock_timeout turns that wait into an error). A
      // transaction id that lands on the first's row is rolled back and the write tried again.
      let committed = false;
      for (let attempt = 0; attempt < 5 && !committed; attempt++) {
        committed = await pool
          .transaction(async (tx) => {
            await tx.query(sql.unsafe`SET LOCAL lock_timeout = '2s'`);
            await tx.query(sql.unsafe`SELECT pg_current_xact_id()`);
            if ((await tx.oneFirst(xactShard)) === shardOfFirst) throw new Error('same row');
            await tx.query(sql.unsafe`UPDATE documents SET title = 'B2' WHERE id = ${b}`);
            return true;
          })
          .catch((err: Error) => {
            if (err.message === 'same row') return false;
            throw err;
          });
      }
      expect(committed).toBe(true);
      expect(await treeVersion(pool, ws)).toBe(before + 1);
    } finally {
      release();
      await first;
    }
    expect(await treeVersion(pool, ws)).toBe(before + 2);
    expect(titles(await rememberedTrees(pool)(ws))).toEqual(['A2', 'B2']);
  });

  it('reads Accept-Encoding', () => {
    for (const yes of ['gzip', 'gzip, deflate, br', 'br;q=1, GZIP;q=0.5', '*'])
      expect(acceptsGzip(yes), yes).toBe(true);
    for (const no of [undefined, '', 'identity', 'br', 'gzip;q=0', 'deflate, gzip;q=0.0'])
      expect(acceptsGzip(no), String(no)).toBe(false);
  });
});
