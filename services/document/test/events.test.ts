import { randomUUID } from 'node:crypto';
import { sql, z } from '@wiki/db';
import type { EventBus, EventData, EventType } from '@wiki/events';
import {
  addMember,
  connectTestBus,
  createDocument,
  createWorkspace,
  type EventRecorder,
  eventually,
  paragraph,
  recordEvents,
  type SignedInUser,
  signInNew,
  testEvent,
} from '@wiki/testing';
import { type DocStack, startDocStack } from './helpers.js';

type ThreadChange = 'thread_created' | 'thread_resolved' | 'thread_reopened' | 'thread_deleted';

describe('events: document.* out, projections in (through the gateway and NATS)', () => {
  let t: DocStack;
  let rec: EventRecorder;
  let bus: EventBus;
  let owner: SignedInUser;
  let editor: SignedInUser;
  let ws: string;

  beforeAll(async () => {
    t = await startDocStack();
    rec = await recordEvents(t.config);
    bus = await connectTestBus(t.config);
    [owner, editor] = await Promise.all([signInNew(t, 'Olivia Owner'), signInNew(t, 'Eddie Editor')]);
    ws = (await createWorkspace(t, owner)).id;
    await addMember(t, ws, owner, editor, 'EDITOR');
  });
  afterAll(async () => {
    await rec?.close();
    await bus?.close();
    await t?.stop();
  });

  const published = (type: string, id: string) =>
    eventually(() => {
      const found = rec.ofType(type).filter((e) => e.data.id === id);
      if (found.length === 0) throw new Error(`no ${type} for ${id} yet`);
      return found;
    });
  const readDoc = async (id: string) => (await t.call('GET', `/api/v1/documents/${id}`, owner)).body.data;

  it('publishes document.* through the outbox with plain text, flags and subtree ids', async () => {
    const parent = await createDocument(t, editor, {
      workspaceId: ws,
      title: 'Parent',
      content: [paragraph('hello search')],
    });
    const [created] = await published('document.created', parent.id);
    expect(created).toMatchObject({
      subject: `${t.config.eventsPrefix}.document.created`,
      actorId: editor.id,
      workspaceId: ws,
      data: {
        id: parent.id,
        workspaceId: ws,
        createdBy: editor.id,
        parentId: null,
        title: 'Parent',
        icon: null,
        isArchived: false,
        isPublished: false,
        isTemplate: false,
        plainText: 'hello search',
        updatedAt: parent.updatedAt,
      },
    });

    // Every document.* event names the creator, whoever made the change (search's author filter).
    await t.call('PUT', `/api/v1/documents/${parent.id}`, owner, {
      title: 'Renamed',
      content: [paragraph('new words')],
    });
    const [updated] = await published('document.updated', parent.id);
    expect(updated.data).toMatchObject({
      title: 'Renamed',
      plainText: 'new words',
      changed: ['title', 'content'],
      createdBy: editor.id,
    });
    expect(updated.actorId).toBe(owner.id);

    const child = await createDocument(t, editor, { workspaceId: ws, title: 'Child', parentId: parent.id });
    const grandchild = await createDocument(t, editor, { workspaceId: ws, title: 'Grandchild', parentId: child.id });
    const other = await createDocument(t, editor, { workspaceId: ws, title: 'Other' });
    await t.call('PUT', `/api/v1/documents/${other.id}/move`, editor, { parentId: parent.id });
    const [moved] = await published('document.moved', other.id);
    expect(moved.data).toMatchObject({
      parentId: parent.id,
      previousParentId: null,
      reason: 'move',
      createdBy: editor.id,
    });

    await t.call('PUT', `/api/v1/documents/${child.id}`, editor, { isArchived: true });
    const [archived] = await published('document.archived', child.id);
    expect(archived.data).toMatchObject({ isArchived: true, createdBy: editor.id });
    expect([...archived.data.ids].sort()).toEqual([child.id, grandchild.id].sort());
    await t.call('PUT', `/api/v1/documents/${child.id}`, editor, { isArchived: false });
    const [restored] = await published('document.restored', child.id);
    expect([...restored.data.ids].sort()).toEqual([child.id, grandchild.id].sort());

    await t.call('POST', `/api/v1/documents/${other.id}/publish`, editor);
    expect((await published('document.published', other.id))[0].data.isPublished).toBe(true);
    await t.call('POST', `/api/v1/documents/${other.id}/unpublish`, editor);
    expect((await published('document.unpublished', other.id))[0].data.isPublished).toBe(false);

    // A plain delete names the one removed id and re-roots the children with document.moved.
    await t.call('DELETE', `/api/v1/documents/${parent.id}`, editor);
    const [deleted] = await published('document.deleted', parent.id);
    expect(deleted.data).toMatchObject({
      id: parent.id,
      ids: [parent.id],
      cascade: false,
      parentId: null,
      createdBy: editor.id,
    });
    for (const id of [child.id, other.id]) {
      const reRooted = (await published('document.moved', id)).find((e) => e.data.reason === 'parent-deleted');
      expect(reRooted?.data).toMatchObject({ parentId: null, previousParentId: parent.id });
    }
    // A cascade names every removed id.
    await t.call('DELETE', `/api/v1/documents/${child.id}/cascade`, editor);
    const [cascaded] = await published('document.deleted', child.id);
    expect(cascaded.data.cascade).toBe(true);
    expect([...cascaded.data.ids].sort()).toEqual([child.id, grandchild.id].sort());
  });

  it('keeps the workspace documentCount in step: creates, archive, restore, delete, cascade', async () => {
    const counted = (await createWorkspace(t, owner)).id;
    const untouched = (await createWorkspace(t, owner)).id;
    await createDocument(t, owner, { workspaceId: untouched, title: 'elsewhere' });
    const count = async (workspaceId = counted) =>
      (await t.call('GET', `/api/v1/workspaces/${workspaceId}`, owner)).body.data.documentCount;
    const expectCount = (n: number) => eventually(async () => expect(await count()).toBe(n));
    const a = await createDocument(t, owner, { workspaceId: counted, title: 'a' });
    const b = await createDocument(t, owner, { workspaceId: counted, title: 'b', parentId: a.id });
    await createDocument(t, owner, { workspaceId: counted, title: 'c', parentId: b.id });
    const d = await createDocument(t, owner, { workspaceId: counted, title: 'd' });
    await expectCount(4);
    await t.call('PUT', `/api/v1/documents/${a.id}`, owner, { isArchived: true });
    await expectCount(1);
    await t.call('PUT', `/api/v1/documents/${a.id}`, owner, { isArchived: false });
    await expectCount(4);
    await t.call('DELETE', `/api/v1/documents/${d.id}`, owner);
    await expectCount(3);
    await t.call('DELETE', `/api/v1/documents/${a.id}/cascade`, owner);
    await expectCount(0);
    await eventually(async () => expect(await count(untouched)).toBe(1)); // the other workspace is untouched
  });

  it('follows user.upserted: a new name shows in createdByUser', async () => {
    const renamed = await signInNew(t, 'Eddie Renamed');
    await addMember(t, ws, owner, renamed, 'EDITOR');
    const doc = await createDocument(t, renamed, { workspaceId: ws, title: 'Whose' });
    expect(doc.createdByUser.name).toBe('Eddie Renamed');
    await t.signIn(renamed.email, 'Edwina Renamed'); // signing in with a new name makes the workspace service announce it
    await eventually(async () =>
      expect((await readDoc(doc.id)).createdByUser).toEqual({
        id: renamed.id,
        name: 'Edwina Renamed',
        avatarUrl: null,
      }),
    );
  });

  it('asks the workspace service for a user the projection does not know', async () => {
    const forgotten = await signInNew(t, 'Forgotten Author');
    await addMember(t, ws, owner, forgotten, 'EDITOR');
    const doc = await createDocument(t, forgotten, { workspaceId: ws, title: 'Read through' });
    const known = () => t.pool.exists(sql.unsafe`SELECT 1 FROM projection_users WHERE id = ${forgotten.id}`);
    await eventually(async () => expect(await known()).toBe(true)); // its user.upserted applied: nothing comes later
    await t.pool.query(sql.unsafe`DELETE FROM projection_users WHERE id = ${forgotten.id}`);
    const read = await readDoc(doc.id);
    expect(read.createdByUser).toEqual({ id: forgotten.id, name: 'Forgotten Author', avatarUrl: null });
    const stored = await t.pool.maybeOneFirst(
      sql.type(z.object({ name: z.string() }))`SELECT name FROM projection_users WHERE id = ${forgotten.id}`,
    );
    expect(stored).toBe('Forgotten Author');
  });

  it('counts open comment threads from comment.thread_* events', async () => {
    const doc = await createDocument(t, editor, { workspaceId: ws, title: 'Discussed' });
    const thread = (type: ThreadChange, threadId: string, status: 'open' | 'resolved') =>
      bus.publish(
        testEvent(`comment.${type}`, {
          actorId: owner.id,
          data: { threadId, documentId: doc.id, workspaceId: ws, status, createdBy: owner.id },
        }),
      );
    // The list item says the same, although lists are remembered per workspace version: a thread
    // event moves the version (migrations/0013), so a list read before is not served again.
    const listed = async () =>
      (
        (await t.call('GET', `/api/v1/documents?workspaceId=${ws}`, owner)).body.data as {
          id: string;
          openCommentCount: number;
        }[]
      ).find((item) => item.id === doc.id)?.openCommentCount;
    expect(await listed()).toBe(0);
    const [t1, t2, t3] = [randomUUID(), randomUUID(), randomUUID()];
    await thread('thread_created', t1, 'open');
    await thread('thread_created', t2, 'open');
    await thread('thread_created', t3, 'open');
    await eventually(async () => expect((await readDoc(doc.id)).openCommentCount).toBe(3));
    expect(await listed()).toBe(3);
    await thread('thread_resolved', t1, 'resolved');
    await thread('thread_deleted', t2, 'open');
    await eventually(async () => expect((await readDoc(doc.id)).openCommentCount).toBe(1));
    expect(await listed()).toBe(1);
    await thread('thread_reopened', t1, 'open');
    await eventually(async () => expect((await readDoc(doc.id)).openCommentCount).toBe(2));
    expect(await listed()).toBe(2);
  });

  /**
   * Publishes an event as if it had happened at `at` and waits until `consumer` has applied it:
   * a late event is one whose occurredAt is older than that of an event applied before it (what a
   * retried event looks like to the consumer).
   */
  const deliver = async <T extends EventType>(consumer: string, type: T, data: Partial<EventData<T>>, at: number) => {
    const envelope = {
      ...testEvent(type, { actorId: owner.id, workspaceId: ws, data }),
      occurredAt: new Date(at).toISOString(),
    };
    await bus.publish(envelope);
    await eventually(async () => {
      const applied = await t.pool.maybeOneFirst(sql.type(z.object({ n: z.number() }))`
        SELECT 1 AS n FROM event_consumed WHERE consumer = ${consumer} AND event_id = ${envelope.id}`);
      expect(applied).toBe(1);
    });
  };

  it('ignores a user.upserted older than the one applied (a late retry)', async () => {
    const id = randomUUID();
    const doc = await createDocument(t, editor, { workspaceId: ws, title: 'Late user' });
    await t.pool.query(sql.unsafe`UPDATE documents SET created_by = ${id} WHERE id = ${doc.id}`);
    const user = (name: string, avatarUrl: string | null) => ({
      id,
      idpUid: `idp-${id}`,
      email: `${id}@example.com`,
      name,
      avatarUrl,
    });
    const now = Date.now();
    await deliver('document-users', 'user.upserted', user('Newer Name', 'https://example.com/new.png'), now);
    await deliver('document-users', 'user.upserted', user('Older Name', null), now - 60_000);
    expect((await readDoc(doc.id)).createdByUser).toEqual({
      id,
      name: 'Newer Name',
      avatarUrl: 'https://example.com/new.png',
    });
    await deliver('document-users', 'user.upserted', user('Newest Name', null), now + 60_000); // a newer one still applies
    expect((await readDoc(doc.id)).createdByUser).toEqual({ id, name: 'Newest Name', avatarUrl: null });
  });

  describe('comment threads out of order', () => {
    const threadEvent =
      (documentId: string) => (type: ThreadChange, threadId: string, status: 'open' | 'resolved', at: number) =>
        deliver(
          'document-comment-threads',
          `comment.${type}`,
          { threadId, documentId, workspaceId: ws, status, createdBy: owner.id },
          at,
        );

    it('never brings a deleted thread back: a late thread_created or thread_reopened leaves openCommentCount at 0', async () => {
      const doc = await createDocument(t, editor, { workspaceId: ws, title: 'Deleted threads' });
      const thread = threadEvent(doc.id);
      const [t1, t2] = [randomUUID(), randomUUID()];
      const now = Date.now();
      await thread('thread_created', t1, 'open', now - 3000);
      await thread('thread_deleted', t1, 'open', now - 1000);
      await thread('thread_reopened', t1, 'open', now - 2000);
      await thread('thread_created', t1, 'open', now - 3000); // republished under a new event id
      await thread('thread_reopened', t1, 'open', now); // even with a later clock: the deletion is final
      // Deleted before its creation arrived at all.
      await thread('thread_deleted', t2, 'open', now - 1000);
      await thread('thread_created', t2, 'open', now - 3000);
      expect((await readDoc(doc.id)).openCommentCount).toBe(0);
    });

    it('keeps a resolved thread resolved when an older thread_reopened arrives late', async () => {
      const doc = await createDocument(t, editor, { workspaceId: ws, title: 'Resolved threads' });
      const thread = threadEvent(doc.id);
      const t1 = randomUUID();
      const now = Date.now();
      await thread('thread_created', t1, 'open', now - 3000);
      await thread('thread_resolved', t1, 'resolved', now - 1000);
      await thread('thread_reopened', t1, 'open', now - 2000);
      expect((await readDoc(doc.id)).openCommentCount).toBe(0);
      await thread('thread_reopened', t1, 'open', now); // a newer one still applies
      expect((await readDoc(doc.id)).openCommentCount).toBe(1);
      await thread('thread_created', t1, 'open', now - 3000); // nor does a late creation undo it
      await thread('thread_resolved', t1, 'resolved', now - 1000);
      expect((await readDoc(doc.id)).openCommentCount).toBe(1);
    });
  });

  it("purges a deleted workspace's documents (workspace.deleted)", async () => {
    const doomed = (await createWorkspace(t, owner, { name: 'Doomed' })).id;
    const a = await createDocument(t, owner, { workspaceId: doomed, title: 'a' });
    await createDocument(t, owner, { workspaceId: doomed, title: 'b', parentId: a.id });
    await t.internal('POST', `/api/v1/internal/documents/${a.id}/collab-state`, {
      body: (() => {
        const f = new FormData();
        f.append('collabState', new Blob([new Uint8Array([1, 2, 3])]), 's');
        return f;
      })(),
    });
    const keep = await createDocument(t, owner, { workspaceId: ws, title: 'keep' });
    expect((await t.call('DELETE', `/api/v1/workspaces/${doomed}`, owner)).status).toBeLessThan(300);
    const left = () =>
      t.pool.oneFirst(
        sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM documents WHERE workspace_id = ${doomed}`,
      );
    await eventually(async () => expect(await left()).toBe(0));
    const states = await t.pool.oneFirst(
      sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM collab_states WHERE document_id = ${a.id}`,
    );
    expect(states).toBe(0);
    expect((await readDoc(keep.id)).title).toBe('keep');
  });

  it('sent only events whose data fits the contract of their type (@wiki/events)', async () => {
    // Events of its own (the others' tests add theirs to what is checked, if they ran).
    const parent = await createDocument(t, editor, { workspaceId: ws, title: 'Contract parent' });
    const moved = await createDocument(t, editor, { workspaceId: ws, title: 'Contract child' });
    await t.call('PUT', `/api/v1/documents/${moved.id}/move`, editor, { parentId: parent.id });
    await published('document.moved', moved.id);
    expect(rec.contractViolations()).toEqual([]);
  });
});
