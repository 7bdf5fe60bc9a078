import { once } from 'node:events';
import {
  addMember,
  type CollabEditor,
  type CreatedDocument,
  collabUrl,
  connectEditor,
  createDocument,
  createWorkspace,
  deniedReason,
  eventually,
  paragraph,
  restDocument,
  type SignedInUser,
  type Stack,
  signInNew,
  synced,
  typeParagraph,
  workspaceWith,
} from '@wiki/testing';
import WebSocket from 'ws';
import { startCollabStack } from './helpers.js';

describe('collaboration through the gateway (Hocuspocus provider clients)', () => {
  let t: Stack;
  let owner: SignedInUser;
  let editor: SignedInUser;
  let viewer: SignedInUser;
  let commenter: SignedInUser;
  let stranger: SignedInUser;
  let ws: string;
  const editors: CollabEditor[] = [];

  const open = async (doc: string, as: SignedInUser) => {
    const e = connectEditor(collabUrl(t), doc, as.token);
    editors.push(e);
    return e;
  };
  const newDoc = (title: string, text?: string): Promise<CreatedDocument> =>
    createDocument(t, owner, { workspaceId: ws, title, content: text === undefined ? [] : [paragraph(text)] });

  beforeAll(async () => {
    t = await startCollabStack();
    [owner, editor, viewer, commenter, stranger] = await Promise.all(
      ['Olivia Owner', 'Eddie Editor', 'Vic Viewer', 'Cora Commenter', 'Sam Stranger'].map((n) => signInNew(t, n)),
    );
    ws = (
      await workspaceWith(t, owner, [
        [editor, 'EDITOR'],
        [viewer, 'VIEWER'],
        [commenter, 'COMMENTER'],
      ])
    ).id;
  });
  afterEach(() => {
    for (const e of editors.splice(0)) e.destroy();
  });
  afterAll(() => t?.stop());

  it('two editors converge, and the text is stored as blocks through the internal API', async () => {
    const doc = await newDoc('Together', 'Hello from REST');
    const a = await synced(await open(doc.id, owner));
    const b = await synced(await open(doc.id, editor));
    expect(a.text()).toBe('Hello from REST');
    typeParagraph(a.doc, 'typed by Olivia');
    typeParagraph(b.doc, 'typed by Eddie');
    await eventually(() => {
      expect(a.text()).toContain('typed by Eddie');
      expect(b.text()).toContain('typed by Olivia');
    });
    expect(a.text()).toBe(b.text());
    const stored = await eventually(async () => {
      const read = await restDocument(t, owner.token, doc.id);
      expect(read.content).toContain('typed by Olivia');
      expect(read.content).toContain('typed by Eddie');
      return read;
    });
    expect(JSON.parse(stored.content)[0]).toMatchObject({
      type: 'paragraph',
      content: [{ type: 'text', text: 'Hello from REST' }],
    });
  });

  it('refuses bad tokens, strangers, unknown documents and ids spelled differently', async () => {
    const doc = await newDoc('Private', 'secret');
    const bad = connectEditor(collabUrl(t), doc.id, 'not-a-jwt');
    editors.push(bad);
    expect(await deniedReason(bad)).toBe('unauthorized');
    expect(await deniedReason(await open(doc.id, stranger))).toBe('forbidden');
    expect(await deniedReason(await open('00000000-0000-4000-8000-000000000000', owner))).toBe('not-found');
    expect(await deniedReason(await open(doc.id.toUpperCase(), owner))).toBe('not-found');
  });

  it('a socket that sends garbage is closed, and the server goes on serving', async () => {
    const doc = await newDoc('Sturdy', 'still here');
    for (const garbage of [Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff]), Buffer.from('not a hocuspocus message')]) {
      const raw = new WebSocket(collabUrl(t));
      await once(raw, 'open');
      raw.send(garbage);
      const [code] = (await once(raw, 'close')) as [number];
      expect([1002, 1007, 1011, 4205]).toContain(code);
    }
    const e = await synced(await open(doc.id, editor));
    expect(e.text()).toBe('still here');
  });

  it('viewers and commenters are read-only: their updates reach nobody and are not stored', async () => {
    const doc = await newDoc('Read only', 'original');
    const writer = await synced(await open(doc.id, editor));
    for (const reader of [viewer, commenter]) {
      const r = await synced(await open(doc.id, reader));
      expect(r.provider.authorizedScope).toBe('readonly');
      expect(r.text()).toBe('original');
      typeParagraph(r.doc, `forged by ${reader.name}`);
      // Awareness travels after the update on the same socket: once the writer sees this
      // reader's awareness, the server has handled (and refused) the update before it.
      r.provider.setAwarenessField('probe', reader.name);
      await eventually(() => {
        const seen = [...writer.provider.awareness!.getStates().values()].map((s) => s.probe);
        expect(seen).toContain(reader.name);
      });
      expect(writer.text()).not.toContain('forged');
    }
    typeParagraph(writer.doc, 'real edit');
    await eventually(async () => expect((await restDocument(t, owner.token, doc.id)).content).toContain('real edit'));
    expect((await restDocument(t, owner.token, doc.id)).content).not.toContain('forged');
  });

  it('awareness names the authenticated user, whatever the client claims', async () => {
    const doc = await newDoc('Cursors');
    const a = await synced(await open(doc.id, editor));
    const b = await synced(await open(doc.id, owner));
    a.provider.setAwarenessField('user', { id: owner.id, name: 'Olivia Owner', color: '#123456' });
    await eventually(() => {
      const states = [...b.provider.awareness!.getStates().entries()];
      const fromA = states.find(([client]) => client === a.doc.clientID)?.[1];
      expect(fromA?.user).toEqual({ id: editor.id, name: 'Eddie Editor', color: '#123456' });
    });
  });

  it('a REST write reaches an open editor, and both it and later typing survive', async () => {
    const doc = await newDoc('Mixed', 'before');
    const e = await synced(await open(doc.id, editor));
    typeParagraph(e.doc, 'live one');
    await eventually(async () => expect((await restDocument(t, owner.token, doc.id)).content).toContain('live one'));

    const put = await t.request('PUT', `/api/v1/documents/${doc.id}`, {
      token: owner.token,
      body: { content: [paragraph('rewritten by REST')] },
    });
    expect(put.status).toBe(200);
    await eventually(() => expect(e.text()).toBe('rewritten by REST'));
    typeParagraph(e.doc, 'typed after REST');
    await eventually(async () => {
      const content = (await restDocument(t, owner.token, doc.id)).content;
      expect(content).toContain('rewritten by REST');
      expect(content).toContain('typed after REST');
    });
    expect((await restDocument(t, owner.token, doc.id)).content).not.toContain('live one');
  });

  it('a NUL typed in the editor is dropped when stored, and typing after it is stored too (issue 11, point 8)', async () => {
    const doc = await newDoc('Odd bytes', 'start');
    const e = await synced(await open(doc.id, editor));
    typeParagraph(e.doc, 'odd\u0000text');
    typeParagraph(e.doc, 'typed after the NUL');
    await eventually(async () => {
      const content = (await restDocument(t, owner.token, doc.id)).content;
      expect(content).toContain('oddtext');
      expect(content).toContain('typed after the NUL');
    });
  });

  it('a REST write to a closed room wins over its stored state; an edit that empties the page is stored', async () => {
    const doc = await newDoc('Closed room', 'first words');
    const e = await synced(await open(doc.id, editor));
    typeParagraph(e.doc, 'typed live');
    await eventually(async () => expect((await restDocument(t, owner.token, doc.id)).content).toContain('typed live'));
    e.destroy();
    const put = await t.request('PUT', `/api/v1/documents/${doc.id}`, {
      token: owner.token,
      body: { content: [paragraph('written while nobody edited')] },
    });
    expect(put.status).toBe(200);
    const again = await synced(await open(doc.id, editor));
    expect(again.text()).toBe('written while nobody edited');

    // Deleting every block is an edit: the empty page is stored.
    again.doc.transact(() => {
      const fragment = again.doc.getXmlFragment('document-store');
      fragment.delete(0, fragment.length);
    });
    await eventually(async () => {
      const content = (await restDocument(t, owner.token, doc.id)).content;
      expect(content).not.toContain('written while nobody edited');
    });
  });

  it('revocation: deleting the workspace closes its rooms', async () => {
    const other = await createWorkspace(t, owner, { name: 'Short-lived' });
    const doc = await createDocument(t, owner, { workspaceId: other.id, title: 'Gone soon', content: [] });
    const e = await synced(await open(doc.id, owner));
    const deleted = await t.request('DELETE', `/api/v1/workspaces/${other.id}`, { token: owner.token });
    expect([200, 204]).toContain(deleted.status);
    await eventually(() => expect(e.stateless.map((s) => JSON.parse(s).reason)).toContain('workspace-deleted'));
  });

  it('search finds text typed in the editor', async () => {
    const doc = await newDoc('Searchable');
    const e = await synced(await open(doc.id, editor));
    typeParagraph(e.doc, 'xylophonic quasar');
    await eventually(async () => {
      const res = await t.request('GET', `/api/v1/documents/search?workspaceId=${ws}&query=quasar`, {
        token: viewer.token,
      });
      expect(res.status).toBe(200);
      expect(res.body.data.map((hit: { id: string }) => hit.id)).toContain(doc.id);
    });
  });

  it('revocation: a member lowered to VIEWER turns read-only, a removed member is closed out', async () => {
    const doc = await newDoc('Revocable', 'start');
    const member = await signInNew(t, 'Rita Revoked');
    const added = await addMember(t, ws, owner, member, 'EDITOR');
    const r = await synced(await open(doc.id, member));
    const o = await synced(await open(doc.id, owner));
    expect(r.provider.authorizedScope).toBe('read-write');

    const lowered = await t.request('PUT', `/api/v1/workspaces/${ws}/members/${added.id}/role`, {
      token: owner.token,
      body: { role: 'VIEWER' },
    });
    expect(lowered.status).toBe(200);
    await eventually(() => expect(r.stateless.map((s) => JSON.parse(s).access)).toContain('read-only'));
    typeParagraph(r.doc, 'after downgrade');
    r.provider.setAwarenessField('probe', 'after-downgrade');
    await eventually(() => {
      const seen = [...o.provider.awareness!.getStates().values()].map((s) => s.probe);
      expect(seen).toContain('after-downgrade');
    });
    expect(o.text()).not.toContain('after downgrade');

    const removed = await t.request('DELETE', `/api/v1/workspaces/${ws}/members/${added.id}`, { token: owner.token });
    expect(removed.status).toBe(204);
    await eventually(() => expect(r.stateless.map((s) => JSON.parse(s).reason)).toContain('member-removed'));
    await eventually(() => expect(r.closed).toBeGreaterThan(0));
  });

  it('revocation: archiving makes the room read-only, deleting closes it', async () => {
    const doc = await newDoc('Archivable', 'text');
    const e = await synced(await open(doc.id, editor));
    const archived = await t.request('PUT', `/api/v1/documents/${doc.id}`, {
      token: owner.token,
      body: { isArchived: true },
    });
    expect(archived.status).toBe(200);
    await eventually(() => expect(e.stateless.map((s) => JSON.parse(s).access)).toContain('read-only'));

    const other = await newDoc('Deletable', 'text');
    const d = await synced(await open(other.id, editor));
    const deleted = await t.request('DELETE', `/api/v1/documents/${other.id}`, { token: owner.token });
    expect([200, 204]).toContain(deleted.status);
    await eventually(() => expect(d.stateless.map((s) => JSON.parse(s).reason)).toContain('document-deleted'));
  });
});
