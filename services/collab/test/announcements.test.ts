import {
  type CollabEditor,
  collabUrl,
  connectEditor,
  createDocument,
  eventually,
  paragraphWithId,
  type SignedInUser,
  type Stack,
  signInNew,
  synced,
  workspaceWith,
} from '@wiki/testing';
import { startPlatform } from '../../../test/platform.js';

const changes = (editor: CollabEditor) =>
  editor.stateless
    .map((s) => JSON.parse(s))
    .filter((m) => m.type === 'changed')
    .map((m) => m.what as string);

// What the web app reads beside the editor (comment threads, title, icon, cover) is announced to
// the room's connections as a fixed word, so open pages read it again without polling.
describe('announcements to open rooms: comments and the document’s shown fields changed', () => {
  let t: Stack;
  let owner: SignedInUser;
  let editor: SignedInUser;
  let workspaceId: string;
  const editors: CollabEditor[] = [];

  beforeAll(async () => {
    // Rooms store soon after a change (as in helpers.ts), so none is left to store while the stack stops.
    t = await startPlatform(['workspace', 'document', 'comment', 'collab'], {
      env: { COLLAB_DEBOUNCE_MS: '50', COLLAB_MAX_DEBOUNCE_MS: '300' },
    });
    [owner, editor] = await Promise.all(['Ann Owner', 'Eli Editor'].map((name) => signInNew(t, name)));
    workspaceId = (await workspaceWith(t, owner, [[editor, 'EDITOR']])).id;
  });
  afterEach(() => {
    for (const e of editors.splice(0)) e.destroy();
  });
  afterAll(() => t?.stop());

  const api = (method: string, path: string, as: SignedInUser, body?: unknown) =>
    t.request(method, `/api/v1${path}`, { token: as.token, body });
  const open = async (documentId: string, as: SignedInUser) => {
    const e = connectEditor(collabUrl(t), documentId, as.token);
    editors.push(e);
    return synced(e);
  };

  it('a thread started and resolved is announced as "comments" to every connection of the room', async () => {
    const doc = await createDocument(t, owner, {
      workspaceId,
      title: 'Talked about',
      content: [paragraphWithId('p1', 'Hello')],
    });
    const [a, b] = [await open(doc.id, owner), await open(doc.id, editor)];
    const thread = await api('POST', `/comments/documents/${doc.id}/threads`, editor, {
      anchor: { blockId: 'p1', startOffset: 0, endOffset: 5, selectedText: 'Hello' },
      comment: { content: 'Is this right?' },
    });
    expect(thread.status).toBe(201);
    await eventually(() => {
      expect(changes(a)).toContain('comments');
      expect(changes(b)).toContain('comments');
    });
    const seen = changes(a).length;
    expect((await api('PUT', `/comments/threads/${thread.body.data.id}/resolve`, owner)).status).toBe(200);
    await eventually(() => expect(changes(a).length).toBeGreaterThan(seen));
    expect(changes(a).every((what) => what === 'comments')).toBe(true);
  });

  it('a rename, an icon and a cover are announced as "document"; a content write alone is not', async () => {
    const doc = await createDocument(t, owner, {
      workspaceId,
      title: 'Before',
      content: [paragraphWithId('p1', 'Hi')],
    });
    const other = await createDocument(t, owner, { workspaceId, title: 'Elsewhere' });
    const a = await open(doc.id, editor);
    const elsewhere = await open(other.id, editor);
    expect(
      (await api('PUT', `/documents/${doc.id}`, owner, { content: [paragraphWithId('p1', 'Hi there')] })).status,
    ).toBe(200);
    await eventually(() => expect(a.text()).toBe('Hi there'));
    expect((await api('PUT', `/documents/${doc.id}`, owner, { title: 'After', icon: '📘' })).status).toBe(200);
    await eventually(() => expect(changes(a)).toEqual(['document']));
    expect(
      (await api('PUT', `/documents/${doc.id}`, owner, { coverImageUrl: 'https://example.com/c.png' })).status,
    ).toBe(200);
    await eventually(() => expect(changes(a)).toEqual(['document', 'document']));
    expect(changes(elsewhere)).toEqual([]);
  });
});
