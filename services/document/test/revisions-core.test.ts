import { type CredentialKind, mintIdentityToken } from '@wiki/auth';
import { sql, z } from '@wiki/db';
import {
  type ApiResponse,
  type CreatedDocument,
  createDocument,
  paragraph,
  type SignedInUser,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import { type DocStack, startDocStack } from './helpers.js';

/**
 * Revisions as every write path makes them (ARCHITECTURE 5.16): `revision` and its ETag, the
 * source of each write (EDIT through the gateway, MCP for the gateway-minted mcp identity, COLLAB
 * for collab saves with their editors), If-Match / lastRevision (412, and exactly one of two racing
 * writers wins), the append route, and `revision` in document.updated. Real gateway, services,
 * Postgres and outbox.
 */
describe('document revisions: sources, ETag, 412 and append (through the gateway)', () => {
  let t: DocStack;
  let owner: SignedInUser;
  let editor: SignedInUser;
  let commenter: SignedInUser;
  let viewer: SignedInUser;
  let ws: string;

  beforeAll(async () => {
    t = await startDocStack({ REVISION_INTERVAL_S: '600' });
    [owner, editor, commenter, viewer] = await Promise.all(
      ['Olivia Owner', 'Eddie Editor', 'Cora Commenter', 'Vic Viewer'].map((name) => signInNew(t, name)),
    );
    ws = (
      await workspaceWith(t, owner, [
        [editor, 'EDITOR'],
        [commenter, 'COMMENTER'],
        [viewer, 'VIEWER'],
      ])
    ).id;
  });
  afterAll(() => t?.stop());

  const path = (id: string) => `/api/v1/documents/${id}`;
  const newDoc = (title = 'Page', content: unknown = [paragraph('one')]) =>
    createDocument(t, owner, { workspaceId: ws, title, content });
  const put = (id: string, as: SignedInUser, body: unknown, headers: Record<string, string> = {}) =>
    t.request('PUT', path(id), { token: as.token, body, headers });
  const append = (id: string, as: SignedInUser, body: unknown, headers: Record<string, string> = {}) =>
    t.request('POST', `${path(id)}/append`, { token: as.token, body, headers });
  const blocks = (...texts: string[]) => JSON.stringify(texts.map(paragraph));
  const texts = (content: string) =>
    (JSON.parse(content) as Array<{ content: Array<{ text: string }> }>).map((b) => b.content[0].text);

  const Row = z.object({
    revision: z.number(),
    title: z.string(),
    source: z.string(),
    createdBy: z.string(),
    contributors: z.array(z.string()),
  });
  /** The document's history rows, oldest first. */
  const history = async (id: string) => [
    ...(await t.pool.any(sql.type(Row)`
      SELECT revision, title, source, created_by AS "createdBy", contributors
      FROM document_revisions WHERE document_id = ${id} ORDER BY revision, created_at`)),
  ];

  /** A call straight to the document service as the gateway would forward it, with an identity of `kind`. */
  async function asKind(kind: CredentialKind, user: SignedInUser, method: string, url: string, body?: unknown) {
    const identity = await mintIdentityToken(t.config.internalTokenSecret, { kind, userId: user.id }, 60);
    const res = await fetch(`${t.serviceUrls.document}${url}`, {
      method,
      headers: { 'x-wiki-identity': identity, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  it('writes REVISION_INTERVAL_S and REVISION_HISTORY to revision_settings at start', async () => {
    const row = await t.pool.one(sql.type(z.object({ intervalS: z.number(), history: z.boolean() }))`
      SELECT interval_s AS "intervalS", history FROM revision_settings`);
    expect(row).toEqual({ intervalS: 600, history: true });
  });

  it('answers revision 1 and its ETag on creation and GET; a PUT makes an EDIT revision and says the new one', async () => {
    const doc = await newDoc('Fresh');
    expect(doc.revision).toBe(1);
    const got = await t.call('GET', path(doc.id), editor);
    expect(got.status).toBe(200);
    expect(got.headers.etag).toBe('"1"');
    expect(got.body.data.revision).toBe(1);

    const res = await put(doc.id, editor, { title: 'Renamed' });
    expect(res.status).toBe(200);
    expect(res.body.data.revision).toBe(2);
    expect(res.headers.etag).toBe('"2"');
    // A PUT that changes nothing stored keeps the revision, and still says it.
    const same = await put(doc.id, editor, { title: 'Renamed' });
    expect([same.status, same.body.data.revision, same.headers.etag]).toEqual([200, 2, '"2"']);

    expect(await history(doc.id)).toEqual([
      { revision: 1, title: 'Fresh', source: 'EDIT', createdBy: owner.id, contributors: [owner.id] },
      { revision: 2, title: 'Renamed', source: 'EDIT', createdBy: editor.id, contributors: [editor.id] },
    ]);
  });

  it('keeps MCP as the source of writes made with the mcp identity the gateway mints, EDIT for a user identity', async () => {
    const doc = await newDoc('Tools');
    const byMcp = await asKind('mcp', editor, 'PUT', path(doc.id), { title: 'By assistant' });
    expect(byMcp.status).toBe(200);
    expect(byMcp.body.data.revision).toBe(2);
    const appended = await asKind('mcp', editor, 'POST', `${path(doc.id)}/append`, { content: blocks('more') });
    expect(appended.status).toBe(200);
    const byUser = await asKind('user', editor, 'PUT', path(doc.id), { title: 'By hand' });
    expect(byUser.status).toBe(200);

    // The MCP PUT and append fold into one MCP revision (same author, within the interval).
    expect((await history(doc.id)).map((r) => [r.revision, r.source, r.title])).toEqual([
      [1, 'EDIT', 'Tools'],
      [3, 'MCP', 'By assistant'],
      [4, 'EDIT', 'By hand'],
    ]);
  });

  describe('collab saves', () => {
    const form = (fields: Record<string, string>) => {
      const data = new FormData();
      data.append('collabState', new Blob([new Uint8Array([1, 2, 3])]), 'state.bin');
      for (const [name, value] of Object.entries(fields)) data.append(name, value);
      return data;
    };
    const save = (id: string, fields: Record<string, string>) =>
      t.internal('POST', `/api/v1/internal/documents/${id}/collab-state`, { body: form(fields) });

    it('make COLLAB revisions whose contributors are the editors the collab server names', async () => {
      const doc = await newDoc('Live');
      const res = await save(doc.id, {
        jsonContent: blocks('typed together'),
        idpUid: `idp|${editor.email}`,
        editorIdpUids: JSON.stringify([`idp|${editor.email}`, `idp|${owner.email}`, 'idp|nobody@example.com']),
      });
      expect(res.status).toBe(200);
      // Without editors: the saver alone.
      const alone = await save(doc.id, { jsonContent: blocks('typed alone'), idpUid: `idp|${owner.email}` });
      expect(alone.status).toBe(200);

      expect((await history(doc.id)).slice(1)).toEqual([
        { revision: 3, title: 'Live', source: 'COLLAB', createdBy: editor.id, contributors: [editor.id, owner.id] },
      ]);
      // The owner was among the first save's editors: the second save (revision 3) folded into it.
      const updated = await t.outbox('document.updated');
      const last = updated.filter((e) => e.data.id === doc.id).at(-1);
      expect(last?.data).toMatchObject({ revision: 3, changed: ['content', 'lastEditedBy'] });
      expect((await t.call('GET', path(doc.id), owner)).body.data.revision).toBe(3);
    });

    it('refuses a malformed editorIdpUids with 400 and stores nothing', async () => {
      const doc = await newDoc('Strict');
      for (const editorIdpUids of ['not json', '"one"', '[1]', '[""]', JSON.stringify(Array(51).fill('idp|x'))]) {
        const res = await save(doc.id, { jsonContent: blocks('never'), editorIdpUids });
        expect(res.status).toBe(400);
        expect(((await res.json()) as any).error.details[0].field).toBe('editorIdpUids');
      }
      const now = (await t.call('GET', path(doc.id), owner)).body.data;
      expect([now.revision, texts(now.content)]).toEqual([1, ['one']]);
    });
  });

  describe('If-Match and lastRevision', () => {
    let doc: CreatedDocument;
    beforeAll(async () => {
      doc = await newDoc('Guarded');
      expect((await put(doc.id, editor, { title: 'Moved on' })).status).toBe(200); // now at 2
    });

    const expect412 = (res: ApiResponse, current: number) => {
      expect(res.status).toBe(412);
      expect(res.body.error.code).toBe('PRECONDITION_FAILED');
      expect(res.body.error.details).toEqual([{ field: 'revision', message: expect.any(String), current }]);
    };

    it('answers 412 with the current revision and changes nothing when the document moved on', async () => {
      expect412(await put(doc.id, editor, { title: 'Stale' }, { 'if-match': '"1"' }), 2);
      expect412(await put(doc.id, editor, { title: 'Stale', lastRevision: 1 }), 2);
      expect412(await put(doc.id, editor, { isArchived: true, lastRevision: 1 }), 2);
      expect412(await put(doc.id, editor, {}, { 'if-match': '"1"' }), 2);
      const now = (await t.call('GET', path(doc.id), editor)).body.data;
      expect([now.title, now.revision, now.isArchived]).toEqual(['Moved on', 2, false]);
    });

    it('takes "n", W/"n" and a bare n, and the same revision in both If-Match and lastRevision', async () => {
      const first = await put(doc.id, editor, { title: 'Second' }, { 'if-match': '"2"' });
      expect([first.status, first.body.data.revision]).toEqual([200, 3]);
      const weak = await put(doc.id, editor, { title: 'Third' }, { 'if-match': 'W/"3"' });
      expect([weak.status, weak.body.data.revision]).toEqual([200, 4]);
      const bare = await put(doc.id, editor, { title: 'Fourth', lastRevision: 4 }, { 'if-match': '4' });
      expect([bare.status, bare.body.data.revision]).toEqual([200, 5]);
    });

    it('refuses a malformed If-Match, or one that contradicts lastRevision, with 400', async () => {
      const before = (await t.call('GET', path(doc.id), editor)).body.data.revision;
      for (const ifMatch of ['abc', '"1", "2"', '"-1"', '""']) {
        const res = await put(doc.id, editor, { title: 'Never' }, { 'if-match': ifMatch });
        expect(res.status).toBe(400);
        expect(res.body.error.details[0].field).toBe('If-Match');
      }
      const both = await put(
        doc.id,
        editor,
        { title: 'Never', lastRevision: before },
        { 'if-match': `"${before + 1}"` },
      );
      expect(both.status).toBe(400);
      expect((await put(doc.id, editor, { title: 'Never', lastRevision: 0 })).status).toBe(400);
      const now = (await t.call('GET', path(doc.id), editor)).body.data;
      expect(now.revision).toBe(before);
      expect(now.title).not.toBe('Never');
    });

    it('lets exactly one of two writers with the same revision through', async () => {
      const raced = await newDoc('Raced');
      for (let round = 1; round <= 5; round++) {
        const [a, b] = await Promise.all([
          put(raced.id, editor, { title: `A${round}`, lastRevision: round }),
          put(raced.id, owner, { content: [paragraph(`B${round}`)] }, { 'if-match': `"${round}"` }),
        ]);
        expect([a.status, b.status].sort()).toEqual([200, 412]);
        const loser = a.status === 412 ? a : b;
        expect412(loser, round + 1);
      }
      expect((await t.call('GET', path(raced.id), editor)).body.data.revision).toBe(6);
    });
  });

  describe('append', () => {
    it('adds the blocks after the content stored now, as an EDIT revision with its event', async () => {
      const doc = await newDoc('Log', [paragraph('one')]);
      const res = await append(doc.id, editor, { content: blocks('two', 'three') });
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe('"2"');
      expect(texts(res.body.data.content)).toEqual(['one', 'two', 'three']);
      expect(res.body.data.wordCount).toBe(3);

      const event = (await t.outbox('document.updated')).filter((e) => e.data.id === doc.id).at(-1);
      expect(event?.data).toMatchObject({ revision: 2, changed: ['content'], plainText: 'one\ntwo\nthree' });
      expect((await history(doc.id)).at(-1)).toMatchObject({ revision: 2, source: 'EDIT', createdBy: editor.id });
    });

    it('lands two appends made at once, both after what was there', async () => {
      const doc = await newDoc('Busy', [paragraph('start')]);
      const [a, b] = await Promise.all([
        append(doc.id, editor, { content: blocks('from editor') }),
        append(doc.id, owner, { content: blocks('from owner') }),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const now = (await t.call('GET', path(doc.id), owner)).body.data;
      expect(now.revision).toBe(3);
      expect(texts(now.content)[0]).toBe('start');
      expect(texts(now.content).slice(1).sort()).toEqual(['from editor', 'from owner']);
    });

    it('checks lastRevision and If-Match like a PUT', async () => {
      const doc = await newDoc('Checked');
      const stale = await append(doc.id, editor, { content: blocks('late'), lastRevision: 2 });
      expect(stale.status).toBe(412);
      expect(stale.body.error.details[0].current).toBe(1);
      const fresh = await append(doc.id, editor, { content: blocks('on time') }, { 'if-match': '"1"' });
      expect([fresh.status, fresh.body.data.revision]).toEqual([200, 2]);
      expect((await append(doc.id, editor, { content: blocks('x') }, { 'if-match': 'nope' })).status).toBe(400);
    });

    it('refuses bad blocks (400), an archived document (409), readers (403), strangers (404)', async () => {
      const doc = await newDoc('Refusals');
      for (const content of ['[]', 'not json', '{"type":"paragraph"}', '[{"props":{}}]', ''])
        expect((await append(doc.id, editor, { content })).status).toBe(400);
      expect((await append(doc.id, editor, {})).status).toBe(400);
      expect((await append(doc.id, viewer, { content: blocks('x') })).status).toBe(403);
      expect((await append(doc.id, commenter, { content: blocks('x') })).status).toBe(403);
      const outsider = await signInNew(t, 'Otto Outsider');
      expect((await append(doc.id, outsider, { content: blocks('x') })).status).toBe(404);
      expect((await append('00000000-0000-4000-8000-000000000000', editor, { content: blocks('x') })).status).toBe(404);

      expect((await put(doc.id, editor, { isArchived: true })).status).toBe(200);
      const archived = await append(doc.id, editor, { content: blocks('x') });
      expect(archived.status).toBe(409);
      expect(archived.body.error.reason).toBe('DOCUMENT_ARCHIVED');

      const now = (await t.call('GET', path(doc.id), editor)).body.data;
      expect([now.revision, texts(now.content)]).toEqual([1, ['one']]);
    });

    it('refuses with 413 when the whole content would pass 2 MiB', async () => {
      const big = paragraph('x'.repeat(1_200_000));
      const doc = await newDoc('Big', [big]);
      const res = await append(doc.id, editor, { content: JSON.stringify([big]) });
      expect(res.status).toBe(413);
      expect((await t.call('GET', path(doc.id), editor)).body.data.revision).toBe(1);
    });
  });

  it('puts the revision after the change in document.updated', async () => {
    const doc = await newDoc('Evented');
    const res = await put(doc.id, editor, { icon: '📘' });
    const event = (await t.outbox('document.updated')).filter((e) => e.data.id === doc.id).at(-1);
    expect(event?.data).toMatchObject({ revision: 2, changed: ['icon'] });
    expect(res.body.data.revision).toBe(2);
  });
});
