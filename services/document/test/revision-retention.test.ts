import { sql, z } from '@wiki/db';
import { createDocument, type SignedInUser, signInNew } from '@wiki/testing';
import { RETENTION_LOCK, revisionPruner } from '../src/events/revision-retention.js';
import { type DocStack, startDocStack } from './helpers.js';

// ARCHITECTURE 5.16: every revision for REVISION_KEEP_DAYS, then the last of each day for a year,
// named ones forever, never the row holding the current revision; bounded work per run.
describe('revision retention', () => {
  let t: DocStack;
  let editor: SignedInUser;

  beforeAll(async () => {
    t = await startDocStack({ REVISION_INTERVAL_S: '0' });
    editor = await signInNew(t, 'Eddie Editor');
  });
  afterAll(() => t?.stop());

  /**
   * A history row written as if long ago: `hour` o'clock (UTC) of the day `daysAgo` days back.
   * Its revision is below the document's (an old state), unless given.
   */
  async function oldRow(
    documentId: string,
    at: { daysAgo: number; hour: number; name?: string; revision?: number },
  ): Promise<string> {
    return t.pool.oneFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO document_revisions (document_id, workspace_id, revision, title, content, word_count, name, source,
        created_by, contributors, started_at, created_at)
      SELECT d.id, d.workspace_id, ${at.revision ?? 0}, 'old', '[]', 0, ${at.name ?? null}, 'EDIT', d.created_by,
        ARRAY[d.created_by], c.at, c.at
      FROM documents d
      CROSS JOIN LATERAL (SELECT date_trunc('day', now() - make_interval(days => ${at.daysAgo}), 'UTC')
        + make_interval(hours => ${at.hour}) AS at) c
      WHERE d.id = ${documentId}
      RETURNING id`);
  }

  const idsOf = async (documentId: string) =>
    new Set(
      await t.pool.anyFirst(
        sql.type(z.object({ id: z.string() }))`SELECT id FROM document_revisions WHERE document_id = ${documentId}`,
      ),
    );

  /** Runs the pruner until its walk reached the keep period. */
  async function pruneAll(prune: ReturnType<typeof revisionPruner>) {
    for (let i = 0; i < 100; i++) {
      const run = await prune();
      if (run?.finished) return;
    }
    throw new Error('the walk never finished');
  }

  it('does bounded work per run and goes on from where the previous run stopped', async () => {
    const doc = await createDocument(t, editor, { title: 'Busy' });
    // Ten named rows first (kept whatever happens), then twelve unnamed ones of one day: eleven go.
    const named = [];
    for (let h = 0; h < 10; h++) named.push(await oldRow(doc.id, { daysAgo: 60, hour: h, name: `n${h}` }));
    const unnamed = [];
    for (let h = 10; h < 22; h++) unnamed.push(await oldRow(doc.id, { daysAgo: 50, hour: h }));

    const prune = revisionPruner(t.pool, 30, { stepRows: 5, steps: 2 });
    const first = await prune();
    expect(first).toEqual({ scanned: 10, deleted: 0, finished: false }); // the named rows
    const second = await prune();
    expect(second).toEqual({ scanned: 10, deleted: 10, finished: false });
    const third = await prune();
    expect(third).toMatchObject({ scanned: 2, deleted: 1, finished: true });
    const left = await idsOf(doc.id);
    for (const id of named) expect(left.has(id)).toBe(true);
    expect(unnamed.filter((id) => left.has(id))).toEqual([unnamed.at(-1)]);

    // Finished, the next run starts over from the oldest row.
    expect(await prune()).toEqual({ scanned: 10, deleted: 0, finished: false });
  });

  it('keeps every recent revision, the last of each older day for a year, named ones forever', async () => {
    const doc = await createDocument(t, editor, { title: 'History' });
    const recent = [await oldRow(doc.id, { daysAgo: 10, hour: 8 }), await oldRow(doc.id, { daysAgo: 10, hour: 9 })];
    const dayX = [
      await oldRow(doc.id, { daysAgo: 40, hour: 8 }),
      await oldRow(doc.id, { daysAgo: 40, hour: 12 }),
      await oldRow(doc.id, { daysAgo: 40, hour: 20 }),
    ];
    // A named row is the last of its day: the unnamed one before it goes, and it stays.
    const dayY = [
      await oldRow(doc.id, { daysAgo: 120, hour: 9 }),
      await oldRow(doc.id, { daysAgo: 120, hour: 10, name: 'Kept' }),
    ];
    // A named row earlier in the day does not stand for it: the last unnamed one stays too.
    const dayZ = [
      await oldRow(doc.id, { daysAgo: 100, hour: 9, name: 'Morning' }),
      await oldRow(doc.id, { daysAgo: 100, hour: 10 }),
    ];
    const yearAgo = [
      await oldRow(doc.id, { daysAgo: 400, hour: 10 }),
      await oldRow(doc.id, { daysAgo: 401, hour: 10, name: 'Ancient' }),
    ];
    const before = await idsOf(doc.id);

    await pruneAll(revisionPruner(t.pool, 30));

    const left = await idsOf(doc.id);
    const gone = [...before].filter((id) => !left.has(id)).sort();
    expect(gone).toEqual([dayX[0], dayX[1], dayY[0], yearAgo[0]].sort());
    for (const id of [...recent, dayX[2], dayY[1], ...dayZ, yearAgo[1]]) expect(left.has(id)).toBe(true);
    // The document's own first row (made now) is recent.
    expect(left.size).toBe(before.size - 4);
  });

  it('never deletes the row holding the document’s current revision, however old', async () => {
    const doc = await createDocument(t, editor, { title: 'Untouched' });
    const [only] = await idsOf(doc.id);
    await t.pool.query(sql.unsafe`
      UPDATE document_revisions SET created_at = now() - interval '3 years', started_at = now() - interval '3 years'
      WHERE id = ${only}`);
    const older = await oldRow(doc.id, { daysAgo: 3 * 365 + 1, hour: 5 });
    await pruneAll(revisionPruner(t.pool, 30));
    expect([...(await idsOf(doc.id))]).toEqual([only]);
    expect(older).not.toBe(only);
  });

  it('prunes with a shorter keep period what a longer one keeps', async () => {
    const doc = await createDocument(t, editor, { title: 'Keep days' });
    const early = await oldRow(doc.id, { daysAgo: 5, hour: 8 });
    const late = await oldRow(doc.id, { daysAgo: 5, hour: 9 });
    await pruneAll(revisionPruner(t.pool, 30));
    expect((await idsOf(doc.id)).has(early)).toBe(true);
    await pruneAll(revisionPruner(t.pool, 3));
    const left = await idsOf(doc.id);
    expect(left.has(early)).toBe(false);
    expect(left.has(late)).toBe(true);
  });

  it('prunes on one replica at a time: a pruner finding the lock taken does nothing', async () => {
    const doc = await createDocument(t, editor, { title: 'Locked' });
    const doomed = await oldRow(doc.id, { daysAgo: 50, hour: 1 });
    await oldRow(doc.id, { daysAgo: 50, hour: 2 });
    const prune = revisionPruner(t.pool, 30);
    await t.pool.connect(async (holder) => {
      await holder.query(sql.unsafe`SELECT pg_advisory_lock(hashtextextended(${RETENTION_LOCK}, 0))`);
      try {
        expect(await prune()).toBeNull();
        expect((await idsOf(doc.id)).has(doomed)).toBe(true);
      } finally {
        await holder.query(sql.unsafe`SELECT pg_advisory_unlock(hashtextextended(${RETENTION_LOCK}, 0))`);
      }
    });
    await pruneAll(prune);
    expect((await idsOf(doc.id)).has(doomed)).toBe(false);
  });
});
