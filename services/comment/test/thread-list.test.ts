import { randomUUID } from 'node:crypto';
import { mintIdentityToken } from '@wiki/auth';
import { createDatabasePool, type DatabasePool, sql } from '@wiki/db';
import { createUsersProjection } from '@wiki/projections';
import type { ServiceClient } from '@wiki/service-client';
import { countingStatements, eventually, type SignedInUser, signInNew, workspaceWith } from '@wiki/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { CommentRow, listComments } from '../src/db/comments.js';
import { findDocument } from '../src/db/documents.js';
import { createPreparedReads, type PreparedReads, type ThreadListing } from '../src/db/prepared-reads.js';
import { listThreads, ThreadRow } from '../src/db/threads.js';
import { anchor, type CommentStack, startCommentStack } from './helpers.js';

/**
 * GET /comments/documents/{id}/threads reads the document, its threads, their comments and the
 * names they show in one prepared statement whose rows are not parsed: they must be the rows the
 * slonik queries give, the answer byte for byte what those give, and the rules the same (VIEWER
 * and up read, 404 to others and for documents that are unknown or deleted). Real Postgres.
 */

/** The same listing through the slonik queries the endpoint made before the prepared statement. */
function slonikReads(pool: DatabasePool): PreparedReads {
  // Only its projection reads are used here, which never ask the workspace service.
  const users = createUsersProjection({ pool, client: {} as ServiceClient, logger: console });
  return {
    async listThreadsOf(documentId, status) {
      const doc = await findDocument(pool, documentId);
      if (!doc) return null;
      const threads = doc.deleted ? [] : [...(await listThreads(pool, documentId, status))];
      const comments = new Map<string, CommentRow[]>(threads.map((t) => [t.id, []]));
      const threadIds = threads.map((t) => t.id);
      for (const c of await listComments(pool, threadIds)) comments.get(c.threadId)?.push(c);
      const shown = new Set<string>();
      for (const t of threads) {
        shown.add(t.createdBy);
        if (t.resolvedBy) shown.add(t.resolvedBy);
      }
      for (const list of comments.values()) for (const c of list) shown.add(c.authorId);
      const profiles = new Map(
        (await users.findMany([...shown])).map(({ id, name, avatarUrl }) => [id, { id, name, avatarUrl }]),
      );
      const missingUsers = [...shown].filter((id) => !profiles.has(id));
      return { workspaceId: doc.workspaceId, deleted: doc.deleted, threads, comments, profiles, missingUsers };
    },
    end: async () => undefined,
  };
}

/** A listing's content in a fixed order, for comparing two listings. */
const normalized = (listing: ThreadListing | null) =>
  listing && {
    ...listing,
    comments: [...listing.comments].sort(([a], [b]) => a.localeCompare(b)),
    profiles: [...listing.profiles].sort(([a], [b]) => a.localeCompare(b)),
    missingUsers: [...listing.missingUsers].sort(),
  };

describe('thread list', () => {
  let stack: CommentStack;
  let db: DatabasePool; // the comment service's own database
  let reads: PreparedReads;
  let counted: ReturnType<typeof countingStatements<DatabasePool>>;
  let preparedCalls = 0;
  let app: FastifyInstance; // prepared statement, counted
  let slonikApp: FastifyInstance;
  let alice: SignedInUser; // OWNER
  let carl: SignedInUser; // COMMENTER
  let vera: SignedInUser; // VIEWER
  let sam: SignedInUser; // not a member
  let workspaceId: string;
  let documentId: string;

  beforeAll(async () => {
    stack = await startCommentStack();
    db = await createDatabasePool(stack.config.databaseUrls.comment);
    reads = createPreparedReads(stack.config.databaseUrls.comment, console);
    counted = countingStatements(db);
    const countingReads: PreparedReads = {
      listThreadsOf: (id, status) => (preparedCalls++, reads.listThreadsOf(id, status)),
      end: async () => undefined,
    };
    app = await buildApp(stack.config, { pool: counted.db, reads: countingReads, logLevel: 'silent' });
    slonikApp = await buildApp(stack.config, { pool: db, reads: slonikReads(db), logLevel: 'silent' });
    await Promise.all([app.ready(), slonikApp.ready()]);
    [alice, carl, vera, sam] = await Promise.all(
      ['Alice Owner', 'Carl Commenter', 'Vera Viewer', 'Sam Stranger'].map((name) => signInNew(stack, name)),
    );
    workspaceId = (
      await workspaceWith(stack, alice, [
        [carl, 'COMMENTER'],
        [vera, 'VIEWER'],
      ])
    ).id;
    documentId = stack.docs.add({ workspaceId });
    const thread = async (as: SignedInUser, content: string) => {
      const res = await stack.request('POST', `/api/v1/comments/documents/${documentId}/threads`, {
        token: as.token,
        body: { anchor: anchor({ selectedText: 'Line one\n"quoted" \\ tab\t ✓' }), comment: { content } },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.data.id as string;
    };
    const first = await thread(carl, 'one');
    const second = await thread(alice, 'two <b>bold</b> \u0001');
    await thread(carl, 'three');
    for (const [as, content] of [
      [alice, 'reply A'],
      [carl, 'reply B'],
    ] as const) {
      const res = await stack.request('POST', `/api/v1/comments/threads/${first}/comments`, {
        token: as.token,
        body: { content },
      });
      expect(res.status).toBe(201);
    }
    expect(
      (await stack.request('PUT', `/api/v1/comments/threads/${second}/resolve`, { token: carl.token })).status,
    ).toBe(200);
    // Microseconds just below a whole millisecond, an edited comment.
    await db.query(sql.unsafe`
      UPDATE comments SET is_edited = true, updated_at = '2026-03-04 05:06:07.999999+00' WHERE content = 'reply A'`);
    await db.query(sql.unsafe`
      UPDATE projection_users SET avatar_url = 'https://example.com/carl.png' WHERE id = ${carl.id}`);
  });

  afterAll(async () => {
    await app?.close();
    await slonikApp?.close();
    await reads?.end();
    await db?.end();
    await stack?.stop();
  });

  const token = (user: SignedInUser) =>
    mintIdentityToken(
      stack.config.internalTokenSecret,
      { kind: 'user', userId: user.id, email: user.email, name: user.name },
      3600,
    );
  const get = async (target: FastifyInstance, user: SignedInUser, query = '', doc = documentId) =>
    target.inject({
      method: 'GET',
      url: `/api/v1/comments/documents/${doc}/threads${query}`,
      headers: { 'x-wiki-identity': await token(user) },
    });

  it('reads the rows the slonik queries read, for every status filter, and null for an unknown document', async () => {
    for (const status of [null, 'open', 'resolved'] as const) {
      const listing = await reads.listThreadsOf(documentId, status);
      expect(normalized(listing)).toEqual(normalized(await slonikReads(db).listThreadsOf(documentId, status)));
      for (const t of listing?.threads ?? []) expect(ThreadRow.strict().parse(t)).toEqual(t);
      for (const list of listing?.comments.values() ?? [])
        for (const c of list) expect(CommentRow.strict().parse(c)).toEqual(c);
    }
    const all = await reads.listThreadsOf(documentId, null);
    expect(all?.threads.map((t) => t.status)).toEqual(['open', 'resolved', 'open']);
    expect([...(all?.comments.values() ?? [])].map((list) => list.map((c) => c.content))).toEqual([
      ['one', 'reply A', 'reply B'],
      ['two <b>bold</b> \u0001'],
      ['three'],
    ]);
    expect(all?.comments.get(all.threads[0]!.id)?.[1]).toMatchObject({
      isEdited: true,
      updatedAt: '2026-03-04T05:06:07.999Z',
    });
    expect(all?.profiles.get(carl.id)).toEqual({
      id: carl.id,
      name: 'Carl Commenter',
      avatarUrl: 'https://example.com/carl.png',
    });
    expect(all?.missingUsers).toEqual([]);
    expect(await reads.listThreadsOf(randomUUID(), null)).toBeNull();
  });

  it('answers byte for byte as the slonik reads did, with one prepared statement and at most the membership check', async () => {
    for (const user of [alice, carl, vera])
      for (const query of ['', '?status=open', '?status=resolved']) {
        counted.reset();
        preparedCalls = 0;
        const res = await get(app, user, query);
        expect(res.statusCode).toBe(200);
        expect(preparedCalls).toBe(1);
        // The membership projection's answer is reused for half a second, so usually none.
        expect(counted.count()).toBeLessThanOrEqual(1);
        expect(res.body).toBe((await get(slonikApp, user, query)).body);
      }
    expect(JSON.parse((await get(app, vera)).body).data).toHaveLength(3);
  });

  it('answers 404 to a non-member and for a deleted document, and 200 with no threads for a document without any', async () => {
    const notFound = (res: { statusCode: number; json(): unknown }) => {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    };
    notFound(await get(app, sam));
    const empty = stack.docs.add({ workspaceId });
    const before = stack.docs.lookups.length;
    expect(JSON.parse((await get(app, vera, '', empty)).body)).toEqual({ success: true, data: [] });
    expect(JSON.parse((await get(app, vera, '', empty)).body)).toEqual({ success: true, data: [] });
    expect(stack.docs.lookups.slice(before)).toEqual([empty]); // asked once, then the projection knows it
    notFound(await get(app, vera, '', randomUUID()));

    const gone = stack.docs.add({ workspaceId });
    await db.query(
      sql.unsafe`INSERT INTO document_projection (id, workspace_id, deleted_at) VALUES (${gone}, ${workspaceId}, now())`,
    );
    const asked = stack.docs.lookups.length;
    notFound(await get(app, alice, '', gone));
    expect(stack.docs.lookups.length).toBe(asked); // a tombstone is gone without asking
  });

  it('looks up users the projection lacks, and shows one nobody knows as an unknown user', async () => {
    const dora = await signInNew(stack, 'Dora Latecomer');
    const doc = stack.docs.add({ workspaceId });
    expect((await get(app, alice, '', doc)).statusCode).toBe(200); // the projection knows the document now
    const threadId = randomUUID();
    const stranger = randomUUID();
    await db.query(sql.unsafe`
      INSERT INTO comment_threads (id, document_id, workspace_id, block_id, start_offset, end_offset, selected_text, status, created_by)
      VALUES (${threadId}, ${doc}, ${workspaceId}, 'b', 0, 1, 'x', 'open', ${dora.id})`);
    await db.query(sql.unsafe`
      INSERT INTO comments (id, thread_id, author_id, content) VALUES (${randomUUID()}, ${threadId}, ${stranger}, 'hm')`);
    // Once her user.upserted has been applied (so that it cannot bring her back), she goes from the projection.
    await eventually(async () =>
      expect(
        await db.exists(sql.unsafe`SELECT 1 FROM projection_users WHERE id = ${dora.id} AND event_at IS NOT NULL`),
      ).toBe(true),
    );
    await db.query(sql.unsafe`DELETE FROM projection_users WHERE id = ${dora.id}`);
    expect((await reads.listThreadsOf(doc, null))?.missingUsers.sort()).toEqual([dora.id, stranger].sort());

    const res = await get(app, vera, '', doc);
    expect(res.statusCode).toBe(200);
    const [thread] = JSON.parse(res.body).data;
    expect(thread.createdBy).toEqual({ id: dora.id, name: 'Dora Latecomer', avatarUrl: null });
    expect(thread.comments[0]).toMatchObject({ userId: stranger, userName: 'Unknown user', userAvatar: null });
    expect((await reads.listThreadsOf(doc, null))?.missingUsers).toEqual([stranger]); // Dora is kept now
  });

  it('lists every thread of a document, however many (the spec has no paging here)', async () => {
    const doc = stack.docs.add({ workspaceId });
    expect((await get(app, alice, '', doc)).statusCode).toBe(200);
    await db.query(sql.unsafe`
      WITH t AS (
        INSERT INTO comment_threads (id, document_id, workspace_id, block_id, start_offset, end_offset, selected_text, status, created_by)
        SELECT gen_random_uuid(), ${doc}, ${workspaceId}, 'b' || n, 0, 1, 'x', 'open', ${carl.id} FROM generate_series(1, 120) n
        RETURNING id, block_id
      )
      INSERT INTO comments (id, thread_id, author_id, content) SELECT gen_random_uuid(), id, ${alice.id}, block_id FROM t`);
    const data = JSON.parse((await get(app, vera, '', doc)).body).data;
    expect(data).toHaveLength(120);
    expect(data.map((t: { anchor: { blockId: string } }) => t.anchor.blockId)).toEqual(
      Array.from({ length: 120 }, (_, i) => `b${i + 1}`),
    );
    expect((await get(app, vera, '', doc)).body).toBe((await get(slonikApp, vera, '', doc)).body);
  });
});
