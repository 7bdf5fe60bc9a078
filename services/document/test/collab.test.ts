import { randomBytes } from 'node:crypto';
import { mintIdentityToken } from '@wiki/auth';
import {
  type CreatedDocument,
  createDocument,
  freePort,
  paragraph,
  type SignedInUser,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import { type DocStack, startDocStack } from './helpers.js';

function form(fields: Record<string, string | Uint8Array>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') data.append(name, value);
    else data.append(name, new Blob([value], { type: 'application/octet-stream' }), 'state.bin');
  }
  return data;
}

describe('internal collaboration API (through the gateway with X-Internal-Api-Key)', () => {
  let t: DocStack;
  let owner: SignedInUser;
  let editor: SignedInUser;
  let viewer: SignedInUser;
  let stranger: SignedInUser;
  let ws: string;
  let doc: CreatedDocument;

  beforeAll(async () => {
    t = await startDocStack();
    [owner, stranger, editor, viewer] = await Promise.all(
      ['Olivia Owner', 'Sam Stranger', 'Eddie Editor', 'Vic Viewer'].map((name) => signInNew(t, name)),
    );
    const workspace = await workspaceWith(t, owner, [
      [editor, 'EDITOR'],
      [viewer, 'VIEWER'],
    ]);
    ws = workspace.id;
    doc = await createDocument(t, owner, { workspaceId: ws, title: 'Shared', content: [paragraph('first version')] });
  });
  afterAll(() => t?.stop());

  const base = (id: string) => `/api/v1/internal/documents/${id}`;
  const permission = async (id: string, userId: string) => {
    const res = await t.internal('GET', `${base(id)}/permission?userId=${encodeURIComponent(userId)}`);
    return { status: res.status, body: (await res.json()) as any };
  };

  describe('permission', () => {
    it('answers by identity-provider uid or by local id', async () => {
      for (const userId of [`idp|${editor.email}`, editor.id]) {
        const res = await permission(doc.id, userId);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ success: true, data: { canEdit: true, role: 'EDITOR', workspaceId: ws } });
      }
      expect((await permission(doc.id, `idp|${owner.email}`)).body.data).toEqual({
        canEdit: true,
        role: 'OWNER',
        workspaceId: ws,
      });
      expect((await permission(doc.id, viewer.id)).body.data).toEqual({
        canEdit: false,
        role: 'VIEWER',
        workspaceId: ws,
      });
    });

    it('refuses non-members and unknown users with 403, unknown documents with 404', async () => {
      expect((await permission(doc.id, `idp|${stranger.email}`)).status).toBe(403);
      expect((await permission(doc.id, stranger.id)).status).toBe(403);
      expect((await permission(doc.id, 'idp|nobody@example.com')).status).toBe(403);
      expect((await permission('00000000-0000-4000-8000-000000000000', editor.id)).status).toBe(404);
      expect((await t.internal('GET', `${base(doc.id)}/permission`)).status).toBe(400);
    });

    it('says canEdit false on an archived document', async () => {
      const archived = await createDocument(t, owner, { workspaceId: ws, title: 'Old' });
      await t.call('PUT', `/api/v1/documents/${archived.id}`, owner, { isArchived: true });
      expect((await permission(archived.id, editor.id)).body.data).toEqual({
        canEdit: false,
        role: 'EDITOR',
        workspaceId: ws,
      });
    });
  });

  describe('collab state', () => {
    it('is 204 before any save, then returns a 1 MiB random state byte for byte', async () => {
      const fresh = await createDocument(t, owner, { workspaceId: ws, title: 'Fresh' });
      const none = await t.internal('GET', `${base(fresh.id)}/collab-state`);
      expect(none.status).toBe(204);
      expect(await none.text()).toBe('');

      const state = randomBytes(1024 * 1024);
      const saved = await t.internal('POST', `${base(fresh.id)}/collab-state`, { body: form({ collabState: state }) });
      expect(saved.status).toBe(200);
      expect(await saved.json()).toEqual({ success: true });

      const res = await t.internal('GET', `${base(fresh.id)}/collab-state`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      const back = Buffer.from(await res.arrayBuffer());
      expect(back.length).toBe(state.length);
      expect(back.equals(state)).toBe(true);

      // A save without jsonContent or plainText leaves the document alone.
      const read = (await t.call('GET', `/api/v1/documents/${fresh.id}`, owner)).body.data;
      expect(read).toMatchObject({ content: '[]', updatedAt: fresh.updatedAt, lastEditedBy: owner.id });

      // A second save replaces it.
      const next = randomBytes(17);
      await t.internal('POST', `${base(fresh.id)}/collab-state`, { body: form({ collabState: next }) });
      expect(
        Buffer.from(await (await t.internal('GET', `${base(fresh.id)}/collab-state`)).arrayBuffer()).equals(next),
      ).toBe(true);
    });

    it('replaces the content with jsonContent, sends plainText to search, and sets lastEditedBy from idpUid', async () => {
      const doc = await createDocument(t, owner, { workspaceId: ws, title: 'Shared', content: [paragraph('first')] });
      const blocks = [paragraph('edited together live')];
      const saved = await t.internal('POST', `${base(doc.id)}/collab-state`, {
        body: form({
          collabState: randomBytes(64),
          jsonContent: JSON.stringify(blocks),
          plainText: 'edited together live',
          idpUid: `idp|${editor.email}`,
        }),
      });
      expect(saved.status).toBe(200);
      const read = (await t.call('GET', `/api/v1/documents/${doc.id}`, viewer)).body.data;
      expect(read).toMatchObject({
        content: JSON.stringify(blocks),
        excerpt: 'edited together live',
        wordCount: 3,
        lastEditedBy: editor.id,
        lastEditedByUser: { id: editor.id, name: 'Eddie Editor', avatarUrl: null },
        createdBy: owner.id,
      });
      const updated = (await t.outbox('document.updated')).filter((e) => e.data.id === doc.id).at(-1)!;
      expect(updated).toMatchObject({
        actorId: editor.id,
        workspaceId: ws,
        data: { plainText: 'edited together live', title: 'Shared' },
      });

      // plainText alone goes to search (and becomes the stored plain text) without touching the content.
      await t.internal('POST', `${base(doc.id)}/collab-state`, {
        body: form({ collabState: randomBytes(8), plainText: 'only for search index' }),
      });
      const after = (await t.call('GET', `/api/v1/documents/${doc.id}`, viewer)).body.data;
      expect(after.content).toBe(JSON.stringify(blocks));
      expect(after.excerpt).toBe('only for search index');
      const last = (await t.outbox('document.updated')).filter((e) => e.data.id === doc.id).at(-1)!;
      expect(last.data.plainText).toBe('only for search index');
    });

    it('names everyone whose typing a save holds in document.updated (editors), for watching', async () => {
      const doc = await createDocument(t, owner, { workspaceId: ws, title: 'Together', content: [paragraph('a')] });
      const saved = await t.internal('POST', `${base(doc.id)}/collab-state`, {
        body: form({
          collabState: randomBytes(16),
          jsonContent: JSON.stringify([paragraph('typed by two')]),
          idpUid: `idp|${editor.email}`,
          editorIdpUids: JSON.stringify([`idp|${owner.email}`, `idp|${editor.email}`]),
        }),
      });
      expect(saved.status).toBe(200);
      const updated = (await t.outbox('document.updated')).filter((e) => e.data.id === doc.id).at(-1)!;
      expect(updated.actorId).toBe(editor.id);
      expect(updated.data.editors).toEqual([owner.id, editor.id]);
      // A save without content (plain text for search only) names nobody but its actor.
      await t.internal('POST', `${base(doc.id)}/collab-state`, {
        body: form({ collabState: randomBytes(8), plainText: 'search only' }),
      });
      const last = (await t.outbox('document.updated')).filter((e) => e.data.id === doc.id).at(-1)!;
      expect(last.data.editors).toBeUndefined();
    });

    it('validates the form: collabState required, jsonContent must be blocks, limits enforced', async () => {
      const target = await createDocument(t, owner, { workspaceId: ws, title: 'Target' });
      const missing = await t.internal('POST', `${base(target.id)}/collab-state`, { body: form({ plainText: 'x' }) });
      expect(missing.status).toBe(400);
      expect(((await missing.json()) as any).error.details).toEqual([{ field: 'collabState', message: 'is required' }]);
      expect(
        (await t.internal('POST', `${base(target.id)}/collab-state`, { body: form({ collabState: 'not a file' }) }))
          .status,
      ).toBe(400);
      expect(
        (
          await t.internal('POST', `${base(target.id)}/collab-state`, {
            body: form({ collabState: randomBytes(4), jsonContent: '{"no":1}' }),
          })
        ).status,
      ).toBe(400);
      const json = await t.internal('POST', `${base(target.id)}/collab-state`, {
        body: JSON.stringify({ collabState: 'x' }),
        headers: { 'content-type': 'application/json' },
      });
      expect(json.status).toBe(415);

      const atLimit = randomBytes(10 * 1024 * 1024);
      expect(
        (await t.internal('POST', `${base(target.id)}/collab-state`, { body: form({ collabState: atLimit }) })).status,
      ).toBe(200);
      const tooBig = await t.internal('POST', `${base(target.id)}/collab-state`, {
        body: form({ collabState: randomBytes(10 * 1024 * 1024 + 1) }),
      });
      expect(tooBig.status).toBe(413);
      expect(((await tooBig.json()) as any).error.code).toBe('PAYLOAD_TOO_LARGE');
      // The refused save stored nothing: the last good state is still there.
      expect(
        Buffer.from(await (await t.internal('GET', `${base(target.id)}/collab-state`)).arrayBuffer()).equals(atLimit),
      ).toBe(true);
      expect(
        (
          await t.internal('POST', `${base('00000000-0000-4000-8000-000000000000')}/collab-state`, {
            body: form({ collabState: randomBytes(4) }),
          })
        ).status,
      ).toBe(404);
      expect((await t.internal('GET', `${base('00000000-0000-4000-8000-000000000000')}/collab-state`)).status).toBe(
        404,
      );
    });
  });

  describe('save edge cases', () => {
    const save = (id: string, fields: Record<string, string | Uint8Array>) =>
      t.internal('POST', `${base(id)}/collab-state`, { body: form(fields) });
    const stateOf = async (id: string) => {
      const res = await t.internal('GET', `${base(id)}/collab-state`);
      return res.status === 204 ? null : Buffer.from(await res.arrayBuffer());
    };

    it('a REST content write makes the stored state stale and refuses saves based on the old revision', async () => {
      const target = await createDocument(t, owner, {
        workspaceId: ws,
        title: 'Live and REST',
        content: [paragraph('from rest')],
      });
      const revisionOf = async () =>
        Number((await t.internal('GET', `${base(target.id)}/collab-state`)).headers.get('x-content-revision'));
      const contentOf = async () => (await (await t.internal('GET', `${base(target.id)}/content`)).json()) as any;
      expect(await contentOf()).toEqual({
        success: true,
        data: { content: JSON.stringify([paragraph('from rest')]), contentRevision: 0 },
      });
      const first = randomBytes(24);
      expect((await save(target.id, { collabState: first, contentRevision: '0' })).status).toBe(200);
      expect((await stateOf(target.id))?.equals(first)).toBe(true);
      // A title change is not a content write: the state stays current.
      await t.call('PUT', `/api/v1/documents/${target.id}`, owner, { title: 'Renamed' });
      expect(await revisionOf()).toBe(0);
      expect((await stateOf(target.id))?.equals(first)).toBe(true);

      await t.call('PUT', `/api/v1/documents/${target.id}`, editor, { content: [paragraph('rest again')] });
      expect(await revisionOf()).toBe(1);
      expect(await stateOf(target.id)).toBeNull();
      expect((await contentOf()).data).toEqual({
        content: JSON.stringify([paragraph('rest again')]),
        contentRevision: 1,
      });

      // An editor that has not seen the REST write cannot overwrite it.
      const stale = await save(target.id, {
        collabState: randomBytes(24),
        jsonContent: JSON.stringify([paragraph('old live text')]),
        contentRevision: '0',
      });
      expect(stale.status).toBe(409);
      expect(((await stale.json()) as any).error).toMatchObject({ code: 'CONFLICT', reason: 'CONTENT_CHANGED' });
      expect((await t.call('GET', `/api/v1/documents/${target.id}`, owner)).body.data.content).toBe(
        JSON.stringify([paragraph('rest again')]),
      );
      expect(await stateOf(target.id)).toBeNull();

      const caughtUp = randomBytes(24);
      expect((await save(target.id, { collabState: caughtUp, contentRevision: '1' })).status).toBe(200);
      expect((await stateOf(target.id))?.equals(caughtUp)).toBe(true);
      expect((await save(target.id, { collabState: caughtUp, contentRevision: 'one' })).status).toBe(400);
      expect((await t.internal('GET', `${base('00000000-0000-4000-8000-000000000000')}/content`)).status).toBe(404);
    });

    it('refuses a save on an archived document with 409 and stores nothing', async () => {
      const target = await createDocument(t, owner, {
        workspaceId: ws,
        title: 'Archived live doc',
        content: [paragraph('frozen')],
      });
      const first = randomBytes(32);
      expect((await save(target.id, { collabState: first })).status).toBe(200);
      await t.call('PUT', `/api/v1/documents/${target.id}`, owner, { isArchived: true });
      const before = (await t.call('GET', `/api/v1/documents/${target.id}`, owner)).body.data;
      const eventsBefore = (await t.outbox()).length;
      const res = await save(target.id, {
        collabState: randomBytes(32),
        jsonContent: JSON.stringify([paragraph('thawed')]),
        plainText: 'thawed',
        idpUid: `idp|${editor.email}`,
      });
      expect(res.status).toBe(409);
      expect(((await res.json()) as any).error).toMatchObject({
        code: 'CONFLICT',
        reason: 'DOCUMENT_ARCHIVED',
        message: 'This document is archived; restore it before editing it',
      });
      expect((await save(target.id, { collabState: randomBytes(8) })).status).toBe(409);
      expect((await stateOf(target.id))!.equals(first)).toBe(true);
      expect((await t.call('GET', `/api/v1/documents/${target.id}`, owner)).body.data).toEqual(before);
      expect(await t.outbox()).toHaveLength(eventsBefore);
      // Restored, it saves again.
      await t.call('PUT', `/api/v1/documents/${target.id}`, owner, { isArchived: false });
      expect((await save(target.id, { collabState: randomBytes(8) })).status).toBe(200);
    });

    it('treats an empty jsonContent like none: the content stays', async () => {
      const target = await createDocument(t, owner, {
        workspaceId: ws,
        title: 'Not wiped',
        content: [paragraph('precious words')],
      });
      for (const jsonContent of ['', '  ']) {
        const res = await save(target.id, { collabState: randomBytes(8), jsonContent });
        expect(res.status, JSON.stringify(jsonContent)).toBe(200);
      }
      expect((await t.call('GET', `/api/v1/documents/${target.id}`, owner)).body.data).toMatchObject({
        content: JSON.stringify([paragraph('precious words')]),
        wordCount: 2,
      });
      // With plainText beside it, plainText is what applies.
      expect(
        (await save(target.id, { collabState: randomBytes(8), jsonContent: '', plainText: 'search me' })).status,
      ).toBe(200);
      expect((await t.call('GET', `/api/v1/documents/${target.id}`, owner)).body.data).toMatchObject({
        content: JSON.stringify([paragraph('precious words')]),
        excerpt: 'search me',
      });
    });

    it('refuses a text field sent as a file part with 400 naming it', async () => {
      const target = await createDocument(t, owner, {
        workspaceId: ws,
        title: 'Form check',
        content: [paragraph('unchanged')],
      });
      const state = randomBytes(16);
      expect((await save(target.id, { collabState: state })).status).toBe(200);
      for (const field of ['jsonContent', 'plainText', 'idpUid']) {
        for (const fields of [
          { collabState: randomBytes(8), [field]: new TextEncoder().encode(field === 'jsonContent' ? '[]' : 'text') },
          { [field]: new TextEncoder().encode(field === 'jsonContent' ? '[]' : 'text'), collabState: randomBytes(8) },
        ]) {
          const res = await save(target.id, fields);
          expect(res.status, field).toBe(400);
          const body = (await res.json()) as any;
          expect(body.error.code).toBe('VALIDATION_ERROR');
          expect(body.error.details).toEqual([{ field, message: 'must be a text field, not a file' }]);
        }
      }
      expect((await stateOf(target.id))!.equals(state)).toBe(true);
      expect((await t.call('GET', `/api/v1/documents/${target.id}`, owner)).body.data.content).toBe(
        JSON.stringify([paragraph('unchanged')]),
      );
    });

    it('saves state and content when the workspace service cannot be asked about idpUid, keeping lastEditedBy', async () => {
      const target = await createDocument(t, owner, {
        workspaceId: ws,
        title: 'Outage',
        content: [paragraph('before the outage')],
      });
      // A port nothing listens on: the look-up of a uid the users projection does not know fails.
      const closed = await freePort();
      const workspaceUrl = t.config.urls.workspace;
      t.config.urls.workspace = `http://127.0.0.1:${closed}`;
      const state = randomBytes(64);
      const blocks = [paragraph('saved during the outage')];
      let res: Response;
      try {
        res = await save(target.id, {
          collabState: state,
          jsonContent: JSON.stringify(blocks),
          idpUid: 'idp|never-seen@example.com',
        });
      } finally {
        t.config.urls.workspace = workspaceUrl;
      }
      expect(res.status).toBe(200);
      expect((await stateOf(target.id))!.equals(state)).toBe(true);
      const read = (await t.call('GET', `/api/v1/documents/${target.id}`, owner)).body.data;
      expect(read).toMatchObject({
        content: JSON.stringify(blocks),
        excerpt: 'saved during the outage',
        lastEditedBy: owner.id,
      });
      const updated = (await t.outbox('document.updated')).filter((e) => e.data.id === target.id).at(-1)!;
      expect(updated.data.changed).toEqual(['content']);
      expect(updated.actorId).toBeNull();

      // With the workspace service back, an unknown uid is still skipped and a known one recorded.
      expect(
        (await save(target.id, { collabState: randomBytes(8), idpUid: 'idp|never-seen@example.com' })).status,
      ).toBe(200);
      expect(
        (
          await save(target.id, {
            collabState: randomBytes(8),
            jsonContent: JSON.stringify(blocks),
            idpUid: `idp|${editor.email}`,
          })
        ).status,
      ).toBe(200);
      expect((await t.call('GET', `/api/v1/documents/${target.id}`, owner)).body.data.lastEditedBy).toBe(editor.id);
    });
  });

  describe('access', () => {
    it('is reachable only with the internal key', async () => {
      const path = `${base(doc.id)}/collab-state`;
      const noKey = await fetch(`${t.gatewayUrl}${path}`);
      expect(noKey.status).toBe(401);
      const wrongKey = await fetch(`${t.gatewayUrl}${path}`, {
        headers: { 'x-internal-api-key': 'wrong-key-of-some-length' },
      });
      expect(wrongKey.status).toBe(401);
      const userToken = await fetch(`${t.gatewayUrl}${path}`, {
        headers: { authorization: `Bearer ${owner.token}` },
      });
      expect(userToken.status).toBe(401);
      // The internal key does not open user routes.
      const keyOnUserRoute = await t.internal('GET', `/api/v1/documents/${doc.id}`);
      expect(keyOnUserRoute.status).toBe(401);

      // Straight to the service: a user identity is refused, no identity is 401.
      const userIdentity = await mintIdentityToken(
        t.config.internalTokenSecret,
        { kind: 'user', userId: owner.id },
        60,
      );
      expect((await t.direct('GET', `${path}`, userIdentity)).status).toBe(403);
      expect((await t.direct('GET', `${path}`, await t.serviceToken())).status).toBe(403);
      expect((await t.direct('GET', `${path}`, null)).status).toBe(401);
    });
  });

  describe('GET /internal/documents/:id for other services', () => {
    it('answers a service identity with the document summary, and nobody else', async () => {
      const res = await t.direct('GET', `/internal/documents/${doc.id}`, await t.serviceToken('comment'));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: { id: doc.id, workspaceId: ws, parentId: null, title: 'Shared', isArchived: false, isPublished: false },
      });
      expect(
        (await t.direct('GET', '/internal/documents/00000000-0000-4000-8000-000000000000', await t.serviceToken()))
          .status,
      ).toBe(404);
      const userIdentity = await mintIdentityToken(
        t.config.internalTokenSecret,
        { kind: 'user', userId: owner.id },
        60,
      );
      expect((await t.direct('GET', `/internal/documents/${doc.id}`, userIdentity)).status).toBe(403);
      expect((await t.direct('GET', `/internal/documents/${doc.id}`, null)).status).toBe(401);
      // The gateway does not route it.
      expect((await t.call('GET', `/internal/documents/${doc.id}`, owner)).status).toBe(404);
    });
  });
});
