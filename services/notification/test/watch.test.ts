import { randomUUID } from 'node:crypto';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { createServiceClient } from '@wiki/service-client';
import {
  addMember,
  createDocument,
  eventually,
  paragraph,
  publishEvent,
  type SignedInUser,
  type Stack,
  signInNew,
  testEvent,
  workspaceWith,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyProducerEvent, type ProducerEvent } from '../src/events/producers.js';
import {
  allOf,
  awaitNotification,
  createThread,
  mention,
  type Notification,
  startNotificationStack,
} from './helpers.js';

/** Short enough to wait out once in a test, long enough for two edits made back to back. */
const DEBOUNCE_S = 2;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

let stack: Stack;
let pool: DatabasePool;
let ada: SignedInUser; // owner
let bob: SignedInUser; // editor
let cy: SignedInUser; // commenter
let vic: SignedInUser; // viewer
let dan: SignedInUser; // not a member
let workspace: { id: string; name: string };

beforeAll(async () => {
  stack = await startNotificationStack({ WATCH_DEBOUNCE_S: String(DEBOUNCE_S) });
  pool = await createDatabasePool(stack.config.databaseUrls.notification);
  ada = await signInNew(stack, 'Ada Owner');
  bob = await signInNew(stack, 'Bob Editor');
  cy = await signInNew(stack, 'Cy Commenter');
  vic = await signInNew(stack, 'Vic Viewer');
  dan = await signInNew(stack, 'Dan Outsider');
  workspace = await workspaceWith(stack, ada, [
    [bob, 'EDITOR'],
    [cy, 'COMMENTER'],
    [vic, 'VIEWER'],
  ]);
});
afterAll(async () => {
  await pool?.end();
  await stack?.stop();
});

const watch = (method: 'GET' | 'PUT' | 'DELETE', documentId: string, as: SignedInUser) =>
  stack.request(method, `/api/v1/documents/${documentId}/watch`, { token: as.token });

async function watching(documentId: string, as: SignedInUser): Promise<boolean> {
  const res = await watch('GET', documentId, as);
  if (res.status !== 200) throw new Error(`GET watch as ${as.email}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.watching;
}

async function edit(as: SignedInUser, documentId: string, fields: Record<string, unknown>) {
  const res = await stack.request('PUT', `/api/v1/documents/${documentId}`, { token: as.token, body: fields });
  if (res.status !== 200) throw new Error(`edit as ${as.email}: ${res.status} ${JSON.stringify(res.body)}`);
}

const updatesOf = async (user: SignedInUser, documentId: string): Promise<Notification[]> =>
  (await allOf(stack, user)).filter((n) => n.type === 'DOCUMENT_UPDATED' && n.document?.id === documentId);

const watchRows = (documentId: string) =>
  pool.anyFirst(sql.type(z.object({ user_id: z.string() }))`
    SELECT user_id FROM document_watches WHERE document_id = ${documentId} ORDER BY user_id`);

describe('the watch routes', () => {
  it('GET, PUT and DELETE answer { watching }; PUT and DELETE are idempotent', async () => {
    const doc = await createDocument(stack, ada, { workspaceId: workspace.id, title: 'Routes' });
    expect(await watching(doc.id, vic)).toBe(false);
    for (let i = 0; i < 2; i++) {
      const put = await watch('PUT', doc.id, vic);
      expect(put.status).toBe(200);
      expect(put.body).toEqual({ success: true, data: { watching: true } });
    }
    expect(await watching(doc.id, vic)).toBe(true);
    for (let i = 0; i < 2; i++) {
      const del = await watch('DELETE', doc.id, vic);
      expect(del.status).toBe(200);
      expect(del.body).toMatchObject({ success: true, data: { watching: false } });
    }
    expect(await watching(doc.id, vic)).toBe(false);
  });

  it('a non-member, an unknown document and a document of another workspace are the same 404; a bad id is a 400', async () => {
    const doc = await createDocument(stack, ada, { workspaceId: workspace.id, title: 'Members only' });
    const elsewhere = await createDocument(stack, dan, { title: 'Dan’s own' });
    for (const [documentId, as] of [
      [doc.id, dan],
      [randomUUID(), ada],
      [elsewhere.id, ada],
    ] as const) {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const res = await watch(method, documentId, as);
        expect(res.status, `${method} ${documentId}`).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
    }
    expect(await watchRows(doc.id)).not.toContain(dan.id);
    const bad = await watch('PUT', 'not-a-uuid', ada);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    const anonymous = await stack.request('GET', `/api/v1/documents/${doc.id}/watch`);
    expect(anonymous.status).toBe(401);
  });

  it('asks the document service for a document its projection does not hold yet', async () => {
    const doc = await createDocument(stack, ada, { workspaceId: workspace.id, title: 'Fresh' });
    await eventually(async () => expect(await watchRows(doc.id)).toContain(ada.id));
    await pool.query(sql.unsafe`DELETE FROM document_titles WHERE id = ${doc.id}`);
    expect((await watch('PUT', doc.id, vic)).status).toBe(200);
    expect(await watching(doc.id, vic)).toBe(true);
    expect((await watch('GET', doc.id, dan)).status).toBe(404);
  });

  it('publishes the routes with their error responses in its OpenAPI document', async () => {
    const res = await fetch(`${stack.serviceUrls.notification}/openapi.json`);
    const doc = (await res.json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const path = doc.paths['/api/v1/documents/{id}/watch'];
    expect(Object.keys(path).sort()).toEqual(['delete', 'get', 'put']);
    for (const operation of Object.values(path)) {
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404']));
    }
  });
});

describe('automatic watching', () => {
  it('the creator, an editor and a commenter watch; a reader who did nothing does not', async () => {
    const doc = await createDocument(stack, ada, { workspaceId: workspace.id, title: 'Auto' });
    await eventually(async () => expect(await watching(doc.id, ada)).toBe(true));
    await edit(bob, doc.id, { title: 'Auto, edited' });
    await createThread(stack, cy, doc.id, 'A remark');
    await eventually(async () => {
      expect(await watching(doc.id, bob)).toBe(true);
      expect(await watching(doc.id, cy)).toBe(true);
    });
    expect(await watching(doc.id, vic)).toBe(false);
  });

  it('an explicit unwatch is never undone by editing or commenting; an explicit watch after it watches again', async () => {
    const doc = await createDocument(stack, ada, { workspaceId: workspace.id, title: 'Unwatched' });
    await eventually(async () => expect(await watchRows(doc.id)).toContain(ada.id));
    expect((await watch('DELETE', doc.id, bob)).status).toBe(200);
    await edit(bob, doc.id, { content: [paragraph('Bob was here')] });
    await createThread(stack, bob, doc.id, `And he commented, ${mention(ada)}`);
    // Ada is told of Bob's edit and of his mention once both events were handled (one consumer, in
    // order): Bob's unwatch held through them.
    await awaitNotification(stack, ada, 'DOCUMENT_UPDATED', (n) => n.document?.id === doc.id);
    await awaitNotification(stack, ada, 'COMMENT_MENTION', (n) => n.document?.id === doc.id);
    expect(await watching(doc.id, bob)).toBe(false);
    expect((await watch('PUT', doc.id, bob)).status).toBe(200);
    expect(await watching(doc.id, bob)).toBe(true);
  });
});

describe('DOCUMENT_UPDATED', () => {
  it('tells the other watchers once per window, counts the edits inside it, never tells the editor', async () => {
    const doc = await createDocument(stack, ada, { workspaceId: workspace.id, title: 'Watched' });
    await eventually(async () => expect(await watchRows(doc.id)).toContain(ada.id));
    const started = Date.now();
    await edit(bob, doc.id, { title: 'Watched, once' });
    await edit(bob, doc.id, { content: [paragraph('and twice')] });
    const first = await awaitNotification(
      stack,
      ada,
      'DOCUMENT_UPDATED',
      (n) => n.document?.id === doc.id && n.metadata.edits === 2,
    );
    expect(first).toMatchObject({
      status: 'UNREAD',
      actor: { id: bob.id, name: 'Bob Editor' },
      workspace: { id: workspace.id, name: workspace.name },
      document: { id: doc.id, title: 'Watched, once' },
      title: 'Document updated',
    });
    expect(first.message).toBe('Bob Editor edited "Watched, once", which you watch.');
    // An icon is no watched change; Bob's own edits never tell Bob.
    await edit(bob, doc.id, { icon: '🌱' });
    expect(await updatesOf(bob, doc.id)).toEqual([]);

    // After the window, the next edit (Ada's own, then Bob's) makes a second notification for Ada only.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + DEBOUNCE_S * 1000 + 100 - Date.now())));
    await edit(ada, doc.id, { content: [paragraph('Ada adds a line')] });
    await edit(bob, doc.id, { content: [paragraph('Bob again')] });
    await eventually(async () => expect(await updatesOf(ada, doc.id)).toHaveLength(2));
    const bobs = await eventually(async () => {
      const got = await updatesOf(bob, doc.id);
      expect(got).toHaveLength(1);
      return got;
    });
    expect(bobs[0].actor?.id).toBe(ada.id);
    expect((await updatesOf(ada, doc.id)).find((n) => n.id === first.id)?.metadata.edits).toBe(2);
  });

  it('a removed member is told nothing and loses their watches; a deleted document loses all its watches', async () => {
    const own = await workspaceWith(stack, ada, [[bob, 'EDITOR']]);
    const fay = await signInNew(stack, 'Fay Leaving');
    const member = await addMember(stack, own.id, ada, fay, 'COMMENTER');
    const doc = await createDocument(stack, ada, { workspaceId: own.id, title: 'Leaving' });
    await createThread(stack, fay, doc.id, 'Before I go');
    await eventually(async () => expect(await watchRows(doc.id)).toContain(fay.id));
    const removed = await stack.request('DELETE', `/api/v1/workspaces/${own.id}/members/${member.id}`, {
      token: ada.token,
    });
    expect(removed.status).toBe(204);
    await eventually(async () => expect(await watchRows(doc.id)).not.toContain(fay.id));
    await edit(bob, doc.id, { title: 'Left' });
    await awaitNotification(stack, ada, 'DOCUMENT_UPDATED', (n) => n.document?.id === doc.id);
    expect(await updatesOf(fay, doc.id)).toEqual([]);

    expect((await stack.request('DELETE', `/api/v1/documents/${doc.id}`, { token: ada.token })).status).toBe(200);
    await eventually(async () => expect(await watchRows(doc.id)).toEqual([]));
  });
});

describe('the debounce, decided in the database', () => {
  const peers = () => createServiceClient({ config: stack.config, service: 'notification', logger: silent });

  /** A title edit of `doc` by `actor` at `at`, as the document service writes it. */
  const editEvent = (doc: { id: string; title: string }, actor: SignedInUser, at: Date) => {
    const event = testEvent('document.updated', {
      actorId: actor.id,
      data: { id: doc.id, workspaceId: workspace.id, title: doc.title, changed: ['content'] },
    });
    event.occurredAt = at.toISOString();
    return event as ProducerEvent;
  };
  const apply = (event: ProducerEvent, deps = { peers: peers(), logger: silent, watchDebounceS: 600 }) =>
    pool.transaction((tx) => applyProducerEvent(event, tx, deps));

  it('at most one per WATCH_DEBOUNCE_S from the edit that told: edits at +1 s and +599 s count on it, +600 s tells again; a replay changes nothing', async () => {
    const doc = await createDocument(stack, ada, { workspaceId: workspace.id, title: 'Timed' });
    await eventually(async () => expect(await watchRows(doc.id)).toContain(ada.id));
    const t0 = Date.now() + 3_600_000; // after every real edit of the document
    const first = editEvent(doc, bob, new Date(t0));
    await apply(first);
    await apply(editEvent(doc, bob, new Date(t0 + 1_000)));
    const late = editEvent(doc, bob, new Date(t0 + 599_000));
    await apply(late);
    await apply(late); // a replay past the consumer's record
    await apply(first);
    let got = await updatesOf(ada, doc.id);
    expect(got).toHaveLength(1);
    expect(got[0].metadata.edits).toBe(3);
    await apply(editEvent(doc, bob, new Date(t0 + 600_000)));
    got = await updatesOf(ada, doc.id);
    expect(got).toHaveLength(2);
    expect(got.map((n) => n.metadata.edits).sort()).toEqual([1, 3]);
  });

  it('two replicas handling two edits of one document at once tell each watcher once', async () => {
    const doc = await createDocument(stack, ada, { workspaceId: workspace.id, title: 'Raced' });
    await eventually(async () => expect(await watchRows(doc.id)).toContain(ada.id));
    expect((await watch('PUT', doc.id, vic)).status).toBe(200);
    const t0 = Date.now() + 3_600_000;
    await Promise.all([apply(editEvent(doc, bob, new Date(t0))), apply(editEvent(doc, cy, new Date(t0 + 5)))]);
    for (const user of [ada, vic]) {
      const got = await updatesOf(user, doc.id);
      expect(got, user.name).toHaveLength(1);
      // 2, or 1 when the later edit was handled first: an older edit arriving after it is not counted.
      expect([1, 2]).toContain(got[0].metadata.edits);
    }
  });

  it('everyone a collab save names as an editor starts watching and is not told of it', async () => {
    const doc = await createDocument(stack, ada, { workspaceId: workspace.id, title: 'Typed together' });
    await eventually(async () => expect(await watchRows(doc.id)).toContain(ada.id));
    expect((await watch('PUT', doc.id, cy)).status).toBe(200);
    const event = editEvent(doc, bob, new Date(Date.now() + 3_600_000));
    (event.data as { editors?: string[] }).editors = [cy.id, vic.id];
    await apply(event);
    expect(await updatesOf(ada, doc.id)).toHaveLength(1);
    for (const editor of [bob, cy, vic]) {
      expect(await updatesOf(editor, doc.id), editor.name).toEqual([]);
      expect(await watching(doc.id, editor), editor.name).toBe(true);
    }
  });

  it('a redelivered edit event makes one notification', async () => {
    const doc = await createDocument(stack, ada, { workspaceId: workspace.id, title: 'Redelivered' });
    await eventually(async () => expect(await watchRows(doc.id)).toContain(ada.id));
    const event = await publishEvent(stack.config, {
      type: 'document.updated',
      actorId: bob.id,
      data: { id: doc.id, workspaceId: workspace.id, title: doc.title, changed: ['content'] },
      occurredAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await eventually(async () => expect(await updatesOf(ada, doc.id)).toHaveLength(1));
    await apply(event as ProducerEvent, { peers: peers(), logger: silent, watchDebounceS: 0 });
    const got = await updatesOf(ada, doc.id);
    expect(got).toHaveLength(1);
    expect(got[0].metadata.edits).toBe(1);
  });
});
