import {
  addMember,
  collabUrl,
  connectEditor,
  createDocument,
  createWorkspace,
  eventually,
  expectStatus,
  paragraph,
  type SignedInUser,
  type Stack,
  signInNew,
  synced,
  typeParagraph,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform } from '../../../test/platform.js';
import { type Connected, closeClientConnections, connect, mcpKeyOf } from './helpers.js';

/**
 * MCP writes never overwrite what they did not see (ARCHITECTURE 5.16): update takes lastRevision,
 * append is applied by the document service to the content as it is, and the history tools list
 * and restore revisions. With the collaboration server in the stack, an append while a person
 * types in the live editor keeps both.
 */
let stack: Stack;
let owner: SignedInUser;
let mcp: Connected;

beforeAll(async () => {
  stack = await startPlatform(['workspace', 'document', 'search', 'collab', 'mcp'], {
    env: { COLLAB_DEBOUNCE_MS: '50', COLLAB_MAX_DEBOUNCE_MS: '300', REVISION_INTERVAL_S: '0' },
  });
  owner = await signInNew(stack, 'owner');
  mcp = await connect(stack, (await mcpKeyOf(stack, owner)).key, 'http');
});
afterAll(async () => {
  await mcp?.close();
  await closeClientConnections();
  await stack?.stop();
});

const stored = async (id: string) =>
  expectStatus(await stack.request('GET', `/api/v1/documents/${id}`, { token: owner.token }), 200, 'read').body.data;
const texts = (content: string) =>
  (JSON.parse(content) as Array<{ content?: Array<{ text: string }> }>).map((b) => b.content?.[0]?.text ?? '');

describe('MCP history tools and safe writes', () => {
  it('wikiUpdateDocument with lastRevision writes when nothing moved on, and says so when something did', async () => {
    const ws = await createWorkspace(stack, owner);
    const doc = await createDocument(stack, owner, { workspaceId: ws.id, title: 'Plan', content: [paragraph('v1')] });
    const read = await mcp.call('wikiGetDocument', { documentId: doc.id });
    const revision = read.json.revision as number;
    expect(revision).toBe(1);

    const first = await mcp.call('wikiUpdateDocument', {
      workspaceName: ws.name,
      documentId: doc.id,
      title: 'Plan B',
      lastRevision: revision,
    });
    expect(first.isError).toBe(false);
    expect(first.json).toMatchObject({ title: 'Plan B', revision: revision + 1 });

    // Written on the revision it read, which has moved on: refused, told the revision now.
    const stale = await mcp.call('wikiUpdateDocument', {
      workspaceName: ws.name,
      documentId: doc.id,
      contentJson: JSON.stringify([paragraph('overwrite')]),
      lastRevision: revision,
    });
    expect(stale.isError).toBe(true);
    expect(stale.json.error).toMatch(/changed since the revision you read: it is at revision 2 now/);
    expect(texts((await stored(doc.id)).content)).toEqual(['v1']);
  });

  it('two updates on the same revision at once: exactly one is written', async () => {
    const ws = await createWorkspace(stack, owner);
    const doc = await createDocument(stack, owner, { workspaceId: ws.id, title: 'Race', content: [paragraph('v1')] });
    const answers = await Promise.all(
      ['left', 'right'].map((title) =>
        mcp.call('wikiUpdateDocument', { workspaceName: ws.name, documentId: doc.id, title, lastRevision: 1 }),
      ),
    );
    expect(answers.filter((a) => a.isError)).toHaveLength(1);
    const winner = answers.find((a) => !a.isError);
    expect((await stored(doc.id)).title).toBe(winner?.json.title);
  });

  it('appends at the same time all land: each is applied to the content as stored', async () => {
    const ws = await createWorkspace(stack, owner);
    const doc = await createDocument(stack, owner, { workspaceId: ws.id, title: 'Log', content: [paragraph('start')] });
    const lines = ['one', 'two', 'three', 'four', 'five'];
    const answers = await Promise.all(
      lines.map((textToAppend) =>
        mcp.call('wikiAppendTextToDocument', { workspaceName: ws.name, documentId: doc.id, textToAppend }),
      ),
    );
    expect(answers.map((a) => a.isError)).toEqual(lines.map(() => false));
    const after = await stored(doc.id);
    expect(texts(after.content)[0]).toBe('start');
    expect(texts(after.content).slice(1).sort()).toEqual([...lines].sort());
    expect(after.revision).toBe(1 + lines.length);
  });

  it('wikiListRevisions lists the history with sources; wikiRestoreRevision brings an old one back', async () => {
    const ws = await createWorkspace(stack, owner);
    const doc = await createDocument(stack, owner, {
      workspaceId: ws.id,
      title: 'Notes',
      content: [paragraph('first')],
    });
    await mcp.call('wikiUpdateDocument', {
      workspaceName: ws.name,
      documentId: doc.id,
      contentJson: JSON.stringify([paragraph('second')]),
    });
    const listed = await mcp.call('wikiListRevisions', { workspaceName: ws.name, documentId: doc.id });
    expect(listed.isError).toBe(false);
    expect(listed.json.currentRevision).toBe(2);
    expect(listed.json.revisions.map((r: { revision: number; source: string }) => [r.revision, r.source])).toEqual([
      [2, 'MCP'],
      [1, 'EDIT'],
    ]);
    expect(listed.json.revisions[0].createdBy).toBe('owner');

    const oldest = listed.json.revisions[1].id as string;
    const restored = await mcp.call('wikiRestoreRevision', {
      workspaceName: ws.name,
      documentId: doc.id,
      revisionId: oldest,
    });
    expect(restored.isError).toBe(false);
    expect(restored.json).toMatchObject({ plainText: 'first', revision: 3 });
    const again = await mcp.call('wikiListRevisions', { workspaceName: ws.name, documentId: doc.id, size: 1 });
    expect(again.json.revisions).toHaveLength(1);
    expect(again.json.revisions[0]).toMatchObject({ revision: 3, source: 'RESTORE' });
    expect(again.json.hint).toMatch(/page=1/);

    const unknown = await mcp.call('wikiRestoreRevision', {
      workspaceName: ws.name,
      documentId: doc.id,
      revisionId: '00000000-0000-4000-8000-000000000000',
    });
    expect(unknown.json.error).toMatch(/not found or not accessible/);
  });

  it('a viewer lists revisions but cannot restore one', async () => {
    const viewer = await signInNew(stack, 'viewer');
    const ws = await createWorkspace(stack, owner);
    await addMember(stack, ws.id, owner, viewer, 'VIEWER');
    const doc = await createDocument(stack, owner, { workspaceId: ws.id, title: 'Policy', content: [paragraph('v1')] });
    const viewing = await connect(stack, (await mcpKeyOf(stack, viewer)).key, 'http');
    try {
      const listed = await viewing.call('wikiListRevisions', { workspaceName: ws.name, documentId: doc.id });
      expect(listed.json.revisions).toHaveLength(1);
      const refused = await viewing.call('wikiRestoreRevision', {
        workspaceName: ws.name,
        documentId: doc.id,
        revisionId: listed.json.revisions[0].id,
      });
      expect(refused.json.error).toMatch(/^Permission too low/);
    } finally {
      await viewing.close();
    }
  });

  it('an append while a person types in the live editor keeps both paragraphs, on screen and stored', async () => {
    const ws = await createWorkspace(stack, owner);
    const doc = await createDocument(stack, owner, {
      workspaceId: ws.id,
      title: 'Live',
      content: [paragraph('start')],
    });
    const editor = await synced(connectEditor(collabUrl(stack), doc.id, owner.token));
    try {
      typeParagraph(editor.doc, 'typed by a person');
      const appended = await mcp.call('wikiAppendTextToDocument', {
        workspaceName: ws.name,
        documentId: doc.id,
        textToAppend: 'added by an assistant',
      });
      expect(appended.isError).toBe(false);
      await eventually(
        async () => {
          expect(editor.text()).toContain('typed by a person');
          expect(editor.text()).toContain('added by an assistant');
          const text = texts((await stored(doc.id)).content).join('\n');
          expect(text).toContain('typed by a person');
          expect(text).toContain('added by an assistant');
        },
        { timeoutMs: 10_000 },
      );
    } finally {
      editor.destroy();
    }
  });
});
