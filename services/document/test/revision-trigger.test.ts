import { randomBytes, randomUUID } from 'node:crypto';
import type { Config } from '@wiki/config';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { prepareDatabase } from '@wiki/service';
import { cleanupConfig, isolatedConfig, UNUSED_IDP } from '@wiki/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { documentService } from '../src/service.js';

/**
 * The history triggers of migration 0009 on real Postgres, through plain SQL: every stored change
 * of title, content, icon or cover bumps `revision` and is kept, folded into the latest row by
 * time and author as ARCHITECTURE 5.16 says, and the write's source and authors are never stored.
 */
let config: Config;
let pool: DatabasePool;
const alice = randomUUID();
const bob = randomUUID();

beforeAll(async () => {
  config = isolatedConfig(UNUSED_IDP);
  await prepareDatabase(documentService, config);
  pool = await createDatabasePool(config.databaseUrls.document);
});

afterAll(async () => {
  await pool?.end();
  if (config) await cleanupConfig(config);
});

async function settings(intervalS: number, history = true) {
  await pool.query(sql.unsafe`UPDATE revision_settings SET interval_s = ${intervalS}, history = ${history}`);
}

beforeEach(() => settings(300));

async function create(by = alice, source: string | null = null): Promise<string> {
  return pool.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO documents (workspace_id, title, content, word_count, owner_id, created_by, last_edited_by, edit_source)
    VALUES (${randomUUID()}, 'First', '[]', 0, ${by}, ${by}, ${by}, ${source}) RETURNING id`);
}

/** One write as a service writes it: the changed fields plus its source and authors. */
async function write(
  id: string,
  set: { title?: string; content?: string; icon?: string | null; cover?: string | null; wordCount?: number },
  by = alice,
  source: string | null = null,
  authors: string[] | null = null,
) {
  const has = (k: keyof typeof set) => Object.hasOwn(set, k);
  await pool.query(sql.unsafe`
    UPDATE documents SET
      title = CASE WHEN ${has('title')} THEN ${set.title ?? null}::text ELSE title END,
      content = CASE WHEN ${has('content')} THEN ${set.content ?? null}::text ELSE content END,
      icon = CASE WHEN ${has('icon')} THEN ${set.icon ?? null}::text ELSE icon END,
      cover_image_url = CASE WHEN ${has('cover')} THEN ${set.cover ?? null}::text ELSE cover_image_url END,
      word_count = coalesce(${set.wordCount ?? null}::int, word_count),
      last_edited_by = ${by}, updated_at = now(),
      edit_source = ${source}, edit_authors = ${authors ? sql.array(authors, 'uuid') : null}
    WHERE id = ${id}`);
}

const Doc = z.object({ revision: z.number(), editSource: z.string().nullable(), editAuthors: z.any() });
const doc = (id: string) =>
  pool.one(sql.type(Doc)`
    SELECT revision, edit_source AS "editSource", edit_authors AS "editAuthors" FROM documents WHERE id = ${id}`);

const Row = z.object({
  revision: z.number(),
  title: z.string(),
  content: z.string(),
  icon: z.string().nullable(),
  coverImageUrl: z.string().nullable(),
  wordCount: z.number(),
  name: z.string().nullable(),
  source: z.string(),
  createdBy: z.string(),
  contributors: z.array(z.string()),
});
/** The document's history, oldest first. */
const rows = async (id: string) => [
  ...(await pool.any(sql.type(Row)`
    SELECT revision, title, content, icon, cover_image_url AS "coverImageUrl", word_count AS "wordCount", name,
      source, created_by AS "createdBy", contributors
    FROM document_revisions WHERE document_id = ${id} ORDER BY revision, created_at`)),
];

/** Moves the document's latest row's start back, as if its first change were `seconds` old. */
const age = (id: string, seconds: number) =>
  pool.query(sql.unsafe`
    UPDATE document_revisions SET started_at = started_at - make_interval(secs => ${seconds})
    WHERE document_id = ${id}`);

describe('revision triggers', () => {
  it('writes the first row at creation', async () => {
    const id = await create(bob);
    expect(await doc(id)).toEqual({ revision: 1, editSource: null, editAuthors: null });
    expect(await rows(id)).toEqual([
      {
        revision: 1,
        title: 'First',
        content: '[]',
        icon: null,
        coverImageUrl: null,
        wordCount: 0,
        name: null,
        source: 'EDIT',
        createdBy: bob,
        contributors: [bob],
      },
    ]);
  });

  it('keeps the source an insert names in the row, not in the document', async () => {
    const id = await create(alice, 'IMPORT');
    expect(await doc(id)).toEqual({ revision: 1, editSource: null, editAuthors: null });
    expect((await rows(id)).map((r) => r.source)).toEqual(['IMPORT']);
  });

  it('bumps the revision for each change of title, content, icon or cover, and not for a no-op', async () => {
    await settings(0);
    const id = await create();
    await write(id, { title: 'Second' });
    await write(id, { content: '[{"id":"a"}]', wordCount: 7 });
    await write(id, { icon: '📄' });
    await write(id, { cover: 'https://example.com/c.png' });
    expect((await doc(id)).revision).toBe(5);
    await write(id, { title: 'Second', icon: '📄' }); // the same values
    await pool.query(sql.unsafe`UPDATE documents SET is_published = true, updated_at = now() WHERE id = ${id}`);
    expect((await doc(id)).revision).toBe(5);

    const history = await rows(id);
    expect(history.map((r) => r.revision)).toEqual([1, 2, 3, 4, 5]);
    expect(history[4]).toMatchObject({
      title: 'Second',
      content: '[{"id":"a"}]',
      icon: '📄',
      coverImageUrl: 'https://example.com/c.png',
      wordCount: 7,
    });
    expect(history[1]).toMatchObject({ title: 'Second', content: '[]', icon: null, wordCount: 0 });
  });

  it('folds changes by the same author within the interval into one row holding the latest state', async () => {
    const id = await create();
    await write(id, { title: 'A' });
    await write(id, { title: 'B' });
    await write(id, { content: '[1]', wordCount: 1 });
    expect((await doc(id)).revision).toBe(4);
    // The creation row is the latest, by the same author, begun just now: all three fold into it.
    expect(await rows(id)).toMatchObject([
      { revision: 4, title: 'B', content: '[1]', wordCount: 1, createdBy: alice, contributors: [alice] },
    ]);
  });

  it('starts a new row once the interval since the row began has passed', async () => {
    await settings(60);
    const id = await create();
    await write(id, { title: 'A' });
    await age(id, 59);
    await write(id, { title: 'B' }); // 59 s after the row began: folded
    expect((await rows(id)).map((r) => r.revision)).toEqual([3]);
    await age(id, 2); // now 61 s since the row began, though its last change was just now
    await write(id, { title: 'C' });
    expect((await rows(id)).map((r) => [r.revision, r.title])).toEqual([
      [3, 'B'],
      [4, 'C'],
    ]);
  });

  it('makes every change a row with interval 0', async () => {
    await settings(0);
    const id = await create();
    await write(id, { title: 'A' });
    await write(id, { title: 'B' });
    expect((await rows(id)).map((r) => [r.revision, r.title])).toEqual([
      [1, 'First'],
      [2, 'A'],
      [3, 'B'],
    ]);
  });

  it('starts a new row for another author, and folds a collab save whose authors were all in it', async () => {
    const id = await create();
    await write(id, { title: 'A' });
    await write(id, { title: 'B' }, bob);
    expect(await rows(id)).toMatchObject([
      { revision: 2, title: 'A', createdBy: alice, contributors: [alice] },
      { revision: 3, title: 'B', createdBy: bob, contributors: [bob] },
    ]);

    await write(id, { content: '[1]' }, alice, 'COLLAB', [bob, alice]);
    await write(id, { content: '[2]' }, bob, 'COLLAB', [alice]);
    await write(id, { content: '[3]' }, bob, 'COLLAB', [alice, randomUUID()]);
    const history = await rows(id);
    expect(history.slice(2)).toMatchObject([
      { revision: 5, content: '[2]', source: 'COLLAB', createdBy: bob, contributors: [bob, alice] },
      { revision: 6, content: '[3]', source: 'COLLAB', createdBy: alice },
    ]);
  });

  it('starts a new row when the source changes', async () => {
    const id = await create();
    await write(id, { title: 'A' });
    await write(id, { title: 'B' }, alice, 'MCP');
    await write(id, { title: 'C' }, alice, 'MCP');
    expect((await rows(id)).map((r) => [r.revision, r.source])).toEqual([
      [2, 'EDIT'],
      [4, 'MCP'],
    ]);
  });

  it('never folds into a named row', async () => {
    const id = await create();
    await write(id, { title: 'A' });
    await pool.query(
      sql.unsafe`UPDATE document_revisions SET name = 'Kept' WHERE document_id = ${id} AND revision = 2`,
    );
    await write(id, { title: 'B' });
    expect((await rows(id)).map((r) => [r.revision, r.title, r.name])).toEqual([
      [2, 'A', 'Kept'],
      [3, 'B', null],
    ]);
  });

  it('never folds a restore, nor into a row that does not hold the revision just replaced', async () => {
    const id = await create();
    await write(id, { title: 'A' }, alice, 'RESTORE');
    await write(id, { title: 'B' }, alice, 'RESTORE');
    expect((await rows(id)).map((r) => [r.revision, r.source])).toEqual([
      [1, 'EDIT'],
      [2, 'RESTORE'],
      [3, 'RESTORE'],
    ]);

    // A row that does not hold the revision just replaced (history was off for a change) is not
    // folded into, though source, author and time would allow it.
    const other = await create();
    await write(other, { title: 'A' });
    await settings(300, false);
    await write(other, { title: 'B' }); // revision 3, no row
    await settings(300, true);
    await write(other, { title: 'C' });
    expect((await rows(other)).map((r) => [r.revision, r.title])).toEqual([
      [2, 'A'],
      [4, 'C'],
    ]);
  });

  it('with history off, bumps the revision and writes no row', async () => {
    await settings(0, false);
    const id = await create();
    await write(id, { title: 'A' });
    await write(id, { content: '[1]' });
    expect((await doc(id)).revision).toBe(3);
    expect(await rows(id)).toEqual([]);
  });

  it('never stores edit_source or edit_authors', async () => {
    const id = await create();
    await write(id, { title: 'A' }, alice, 'MCP', [alice]);
    expect(await doc(id)).toEqual({ revision: 2, editSource: null, editAuthors: null });
    // A write that changes none of the four fields clears them too.
    await write(id, {}, alice, 'COLLAB', [bob]);
    expect(await doc(id)).toEqual({ revision: 2, editSource: null, editAuthors: null });
  });

  it('with content_kept, a title fold keeps the row’s stored content instead of writing it again', async () => {
    const id = await create();
    // 200 KB that does not compress: stored out of line (TOAST), as a long document is.
    const long = randomBytes(100_000).toString('hex');
    await write(id, { content: long });
    const toastBytes = () =>
      pool.oneFirst(sql.type(z.object({ size: z.number() }))`
        SELECT pg_relation_size(reltoastrelid)::int AS size FROM pg_class WHERE relname = 'document_revisions'`);
    const before = await toastBytes();
    for (let i = 0; i < 20; i++)
      await pool.query(sql.unsafe`
        UPDATE documents SET title = ${`Title ${i}`}, content_kept = true, last_edited_by = ${alice} WHERE id = ${id}`);
    const history = await rows(id);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ revision: 22, title: 'Title 19', content: long });
    expect((await doc(id)).revision).toBe(22);
    // Twenty rewrites of the content would add ~2 MB of chunks (minus compression); kept, none.
    expect((await toastBytes()) - before).toBeLessThan(100_000);
    expect(
      await pool.oneFirst(sql.type(z.object({ kept: z.boolean().nullable() }))`
        SELECT content_kept AS kept FROM documents WHERE id = ${id}`),
    ).toBeNull();
  });

  it('without content_kept, a content change is still seen and folded in', async () => {
    const id = await create();
    await write(id, { content: '[1]' });
    await write(id, { title: 'Same author', content: '[2]' });
    expect(await rows(id)).toEqual([expect.objectContaining({ revision: 3, title: 'Same author', content: '[2]' })]);
  });

  it('refuses an unknown source', async () => {
    const id = await create();
    await expect(write(id, { title: 'A' }, alice, 'GUESS')).rejects.toThrow(/check/);
    expect((await doc(id)).revision).toBe(1);
  });

  it('deletes the history with its document', async () => {
    const id = await create();
    await write(id, { title: 'A' }, bob);
    expect(await rows(id)).toHaveLength(2);
    await pool.query(sql.unsafe`DELETE FROM documents WHERE id = ${id}`);
    expect(await rows(id)).toEqual([]);
  });
});
