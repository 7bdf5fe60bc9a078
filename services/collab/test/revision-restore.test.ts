import {
  type CollabEditor,
  collabUrl,
  connectEditor,
  createDocument,
  eventually,
  paragraphWithId,
  restDocument,
  type SignedInUser,
  type Stack,
  signInNew,
  synced,
  typeParagraph,
  workspaceWith,
} from '@wiki/testing';
import { startCollabStack } from './helpers.js';

// ARCHITECTURE 5.16: a restore reaches open editors, and what they type meanwhile stays.
describe('restoring a revision with two live editors open', () => {
  let t: Stack;
  let owner: SignedInUser;
  let editor: SignedInUser;
  let ws: string;
  const editors: CollabEditor[] = [];

  beforeAll(async () => {
    // Every change a revision of its own; rooms store their edits seconds after the last one, so
    // what is typed around the restore is still only in the rooms when the restore is written.
    t = await startCollabStack({
      REVISION_INTERVAL_S: '0',
      COLLAB_DEBOUNCE_MS: '3000',
      COLLAB_MAX_DEBOUNCE_MS: '10000',
    });
    [owner, editor] = await Promise.all(['Olivia Owner', 'Eddie Editor'].map((n) => signInNew(t, n)));
    ws = (await workspaceWith(t, owner, [[editor, 'EDITOR']])).id;
  });
  afterAll(async () => {
    for (const e of editors.splice(0)) e.destroy();
    await t?.stop();
  });

  it('both editors see the restored text, and a paragraph typed during the restore is kept', async () => {
    const doc = await createDocument(t, owner, {
      workspaceId: ws,
      title: 'Live',
      content: [paragraphWithId('a', 'The original wording'), paragraphWithId('b', 'A second paragraph')],
    });
    const edited = await t.request('PUT', `/api/v1/documents/${doc.id}`, {
      token: owner.token,
      body: { content: [paragraphWithId('a', 'A rewrite nobody liked'), paragraphWithId('b', 'A second paragraph')] },
    });
    expect(edited.status).toBe(200);
    const revisions = await t.request('GET', `/api/v1/documents/${doc.id}/revisions`, { token: owner.token });
    const first = revisions.body.data.content.find((r: { revision: number }) => r.revision === 1);
    expect(first).toBeDefined();

    const a = await synced(connectEditor(collabUrl(t), doc.id, owner.token));
    const b = await synced(connectEditor(collabUrl(t), doc.id, editor.token));
    editors.push(a, b);
    for (const e of [a, b]) expect(e.text()).toContain('A rewrite nobody liked');

    typeParagraph(b.doc, 'Typed while restoring');
    const restored = await t.request('POST', `/api/v1/documents/${doc.id}/revisions/${first.id}/restore`, {
      token: editor.token,
    });
    expect(restored.status).toBe(200);
    typeParagraph(a.doc, 'Typed right after');

    await eventually(
      () => {
        for (const e of [a, b]) {
          expect(e.text()).toContain('The original wording');
          expect(e.text()).not.toContain('A rewrite nobody liked');
          expect(e.text()).toContain('A second paragraph');
          expect(e.text()).toContain('Typed while restoring');
          expect(e.text()).toContain('Typed right after');
        }
      },
      { timeoutMs: 20_000 },
    );
    expect(a.text()).toBe(b.text());

    // The rooms store it all: the restored text and both paragraphs.
    await eventually(
      async () => {
        const stored = await restDocument(t, owner.token, doc.id);
        for (const text of ['The original wording', 'Typed while restoring', 'Typed right after']) {
          expect(stored.content).toContain(text);
        }
        expect(stored.content).not.toContain('A rewrite nobody liked');
      },
      { timeoutMs: 30_000 },
    );
  });
});
