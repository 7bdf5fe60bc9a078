import { randomUUID } from 'node:crypto';
import {
  addMember,
  createDocument,
  createWorkspace,
  eventually,
  expectStatus,
  paragraph,
  publishEvent,
  type SignedInUser,
  type Stack,
  signInNew,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCK_JSON_SCHEMA } from '../src/domain/block-schema.js';
import { RESULT_MAX_CHARS } from '../src/domain/text.js';
import {
  type Connected,
  closeClientConnections,
  connect,
  mcpKeyOf,
  startMcpStack,
  TRANSPORTS,
  type TransportKind,
} from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startMcpStack();
});
afterAll(async () => {
  await closeClientConnections();
  await stack?.stop();
});

const TOOL_NAMES = [
  'wikiListWorkspaces',
  'wikiListUserWorkspaces',
  'wikiListDocuments',
  'wikiListDocumentsInWorkspace',
  'wikiSearch',
  'wikiGetDocument',
  'wikiGetBlockNoteSchema',
  'wikiCreateDocument',
  'wikiUpdateDocument',
  'wikiAppendTextToDocument',
  'wikiDeleteDocument',
  'wikiListRevisions',
  'wikiRestoreRevision',
];

const restDocument = async (user: SignedInUser, id: string) =>
  expectStatus(await stack.request('GET', `/api/v1/documents/${id}`, { token: user.token }), 200, 'read the document')
    .body.data;

const restTitles = async (user: SignedInUser, workspaceId: string) => {
  const res = await stack.request('GET', `/api/v1/documents/tree?workspaceId=${workspaceId}`, { token: user.token });
  return (expectStatus(res, 200, 'read the tree').body.data as Array<{ title: string }>).map((n) => n.title);
};

const texts = (content: string) =>
  (JSON.parse(content) as Array<{ content?: Array<{ text: string }> }>).map((b) => b.content?.[0]?.text);

describe.each(TRANSPORTS)('tools over %s', (kind: TransportKind) => {
  let owner: SignedInUser;
  let mcp: Connected;

  beforeAll(async () => {
    owner = await signInNew(stack, 'owner');
    mcp = await connect(stack, (await mcpKeyOf(stack, owner)).key, kind);
  });
  afterAll(() => mcp?.close());

  it('lists the thirteen tools with schemas, in under 32 KB', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(20);
      expect(tool.inputSchema.type).toBe('object');
    }
    expect(Buffer.byteLength(JSON.stringify({ tools }))).toBeLessThan(32 * 1024);
  });

  it('wikiListWorkspaces lists active workspaces; wikiListUserWorkspaces all, with role and isArchived', async () => {
    const active = await createWorkspace(stack, owner, { description: 'the active one', icon: '📘' });
    const archived = await createWorkspace(stack, owner);
    expectStatus(
      await stack.request('PUT', `/api/v1/workspaces/${archived.id}`, {
        token: owner.token,
        body: { isArchived: true },
      }),
      200,
      'archive the workspace',
    );
    const other = await signInNew(stack, 'other');
    const shared = await createWorkspace(stack, other);
    await addMember(stack, shared.id, other, owner, 'EDITOR');
    const hidden = await createWorkspace(stack, other);

    const listed = await mcp.call('wikiListWorkspaces');
    expect(listed.isError).toBe(false);
    const ids = listed.json.workspaces.map((w: { id: string }) => w.id);
    expect(ids).toContain(active.id);
    expect(ids).toContain(shared.id);
    expect(ids).not.toContain(archived.id);
    expect(ids).not.toContain(hidden.id);
    expect(listed.json.workspaces.find((w: { id: string }) => w.id === active.id)).toEqual({
      id: active.id,
      name: active.name,
      description: 'the active one',
      icon: '📘',
    });

    const all = await mcp.call('wikiListUserWorkspaces');
    const byId = new Map(all.json.workspaces.map((w: { id: string }) => [w.id, w]));
    expect(byId.get(archived.id)).toMatchObject({ role: 'OWNER', isArchived: true });
    expect(byId.get(active.id)).toMatchObject({ role: 'OWNER', isArchived: false });
    expect(byId.get(shared.id)).toMatchObject({ role: 'EDITOR', isArchived: false });
    expect(byId.has(hidden.id)).toBe(false);
    expect(all.json).toMatchObject({ total: all.json.workspaces.length, remaining: 0, nextOffset: null });

    const firstOnly = await mcp.call('wikiListUserWorkspaces', { limit: 1 });
    expect(firstOnly.json.workspaces).toHaveLength(1);
    expect(firstOnly.json).toMatchObject({ remaining: all.json.total - 1, nextOffset: 1 });
    expect(firstOnly.json.hint).toContain('offset=1');
  });

  it('wikiListDocuments answers the tree in order, without archived documents, a page at a time', async () => {
    const ws = await createWorkspace(stack, owner);
    const a = await createDocument(stack, owner, { workspaceId: ws.id, title: 'A' });
    const a1 = await createDocument(stack, owner, { workspaceId: ws.id, title: 'A1', parentId: a.id });
    const b = await createDocument(stack, owner, { workspaceId: ws.id, title: 'B' });
    const gone = await createDocument(stack, owner, { workspaceId: ws.id, title: 'Gone' });
    expectStatus(
      await stack.request('PUT', `/api/v1/documents/${gone.id}`, { token: owner.token, body: { isArchived: true } }),
      200,
      'archive',
    );

    const listed = await mcp.call('wikiListDocuments', { workspaceId: ws.id });
    expect(listed.isError).toBe(false);
    expect(listed.json.documents).toEqual([
      { id: a.id, title: 'A', icon: null, parentId: null, depth: 0, updatedAt: expect.any(String) },
      { id: a1.id, title: 'A1', icon: null, parentId: a.id, depth: 1, updatedAt: expect.any(String) },
      { id: b.id, title: 'B', icon: null, parentId: null, depth: 0, updatedAt: expect.any(String) },
    ]);

    const page = await mcp.call('wikiListDocuments', { workspaceId: ws.id, offset: '1', limit: 1 });
    expect(page.json).toMatchObject({ total: 3, offset: 1, remaining: 1, nextOffset: 2 });
    expect(page.json.documents.map((d: { id: string }) => d.id)).toEqual([a1.id]);
  });

  it('wikiListDocumentsInWorkspace finds the workspace by exact name and says when a name is ambiguous', async () => {
    const name = `Handbook ${kind} ${Date.now()}`;
    const ws = await createWorkspace(stack, owner, { name });
    const doc = await createDocument(stack, owner, { workspaceId: ws.id, title: 'Onboarding' });

    const listed = await mcp.call('wikiListDocumentsInWorkspace', { workspaceName: name });
    expect(listed.json.workspace).toEqual({ id: ws.id, name });
    expect(listed.json.documents.map((d: { id: string }) => d.id)).toEqual([doc.id]);

    const wrongCase = await mcp.call('wikiListDocumentsInWorkspace', { workspaceName: name.toUpperCase() });
    expect(wrongCase.isError).toBe(true);
    expect(wrongCase.json.error).toMatch(/not found or not accessible/);

    const twin = await createWorkspace(stack, owner, { name });
    const ambiguous = await mcp.call('wikiListDocumentsInWorkspace', { workspaceName: name });
    expect(ambiguous.isError).toBe(true);
    expect(ambiguous.json.error).toContain('2 of your workspaces are named');
    expect(ambiguous.json.error).toContain(ws.id);
    expect(ambiguous.json.error).toContain(twin.id);

    const byId = await mcp.call('wikiListDocumentsInWorkspace', { workspaceName: twin.id });
    expect(byId.json).toMatchObject({ workspace: { id: twin.id }, documents: [], total: 0 });
  });

  it('wikiSearch finds documents with a plain-text excerpt', async () => {
    const ws = await createWorkspace(stack, owner);
    const doc = await createDocument(stack, owner, {
      workspaceId: ws.id,
      title: 'Release notes',
      content: [paragraph('The zeppelin & the balloon launch on Friday')],
    });
    const found = await eventually(async () => {
      const r = await mcp.call('wikiSearch', { workspaceId: ws.id, query: 'zeppelin' });
      expect(r.json.count).toBe(1);
      return r;
    });
    expect(found.isError).toBe(false);
    expect(found.json.results).toEqual([
      {
        id: doc.id,
        title: 'Release notes',
        icon: null,
        parentId: null,
        matchField: 'content',
        excerpt: expect.stringContaining('zeppelin & the balloon'),
      },
    ]);
    const none = await mcp.call('wikiSearch', { workspaceId: ws.id, query: 'submarine' });
    expect(none.json).toMatchObject({ results: [], count: 0 });
  });

  it('wikiSearch says when a comment matched, and which thread', async () => {
    const ws = await createWorkspace(stack, owner);
    const doc = await createDocument(stack, owner, { workspaceId: ws.id, title: 'Launch plan', content: [] });
    const [commentId, threadId] = [randomUUID(), randomUUID()];
    // The comment service is not part of this stack: its event, as it publishes it, is.
    await publishEvent(stack.config, {
      type: 'comment.added',
      workspaceId: ws.id,
      data: {
        commentId,
        threadId,
        documentId: doc.id,
        workspaceId: ws.id,
        authorId: owner.id,
        threadCreatedBy: owner.id,
        mentions: [],
        participants: [owner.id],
        text: 'Should the dirigible wait for calmer winds?',
      },
    });
    const found = await eventually(async () => {
      const r = await mcp.call('wikiSearch', { workspaceId: ws.id, query: 'dirigible' });
      expect(r.json.count).toBe(1);
      return r;
    });
    expect(found.json.results).toEqual([
      {
        id: doc.id,
        title: 'Launch plan',
        icon: null,
        parentId: null,
        matchField: 'comment',
        commentThreadId: threadId,
        excerpt: expect.stringContaining('dirigible wait'),
      },
    ]);
  });

  it('wikiGetDocument answers metadata and text, and pages long text with offset and limit', async () => {
    const ws = await createWorkspace(stack, owner);
    const doc = await createDocument(stack, owner, {
      workspaceId: ws.id,
      title: 'Guide',
      icon: '📗',
      content: [paragraph('first line'), paragraph('second line')],
    });
    const got = await mcp.call('wikiGetDocument', { documentId: doc.id });
    expect(got.isError).toBe(false);
    expect(got.json).toMatchObject({
      id: doc.id,
      title: 'Guide',
      icon: '📗',
      workspaceId: ws.id,
      parentId: null,
      excerpt: 'first line\nsecond line',
      wordCount: 4,
      isArchived: false,
      plainText: 'first line\nsecond line',
      offset: 0,
      totalChars: 22,
      nextOffset: null,
      updatedAt: doc.updatedAt,
    });

    const window = await mcp.call('wikiGetDocument', { documentId: doc.id, offset: 6, limit: 4 });
    expect(window.json).toMatchObject({ plainText: 'line', offset: 6, nextOffset: 10, totalChars: 22 });
    expect(window.json.hint).toContain('offset=10');

    const json = await mcp.call('wikiGetDocument', { documentId: doc.id, part: 'contentJson' });
    expect(texts(json.json.contentJson)).toEqual(['first line', 'second line']);
    expect(json.json).not.toHaveProperty('plainText');
  });

  it('wikiGetDocument cuts a long document at the result cap and reads on from nextOffset', async () => {
    const ws = await createWorkspace(stack, owner);
    const chunk = `${'x'.repeat(4_999)}"`;
    const blocks = Array.from({ length: 30 }, (_, i) => paragraph(`${i}:${chunk}`));
    const doc = await createDocument(stack, owner, { workspaceId: ws.id, title: 'Long', content: blocks });

    let offset = 0;
    let text = '';
    let calls = 0;
    for (;;) {
      const r = await mcp.call('wikiGetDocument', { documentId: doc.id, offset });
      expect(r.text.length).toBeLessThanOrEqual(RESULT_MAX_CHARS);
      text += r.json.plainText;
      calls++;
      if (r.json.nextOffset === null) break;
      offset = r.json.nextOffset;
    }
    expect(calls).toBe(2);
    expect(text).toBe(blocks.map((_, i) => `${i}:${chunk}`).join('\n'));

    // The block JSON escapes every quote: the window shrinks until the answer fits the cap.
    const json = await mcp.call('wikiGetDocument', { documentId: doc.id, part: 'contentJson' });
    expect(json.text.length).toBeLessThanOrEqual(RESULT_MAX_CHARS);
    expect(json.json.nextOffset).toBeGreaterThan(0);
  });

  it('wikiGetBlockNoteSchema answers the JSON Schema that create validates against', async () => {
    const r = await mcp.call('wikiGetBlockNoteSchema');
    expect(r.isError).toBe(false);
    expect(r.json).toEqual(JSON.parse(JSON.stringify(BLOCK_JSON_SCHEMA)));
    expect(r.json.definitions.block.properties.type.enum).toContain('heading');

    const ws = await createWorkspace(stack, owner);
    const created = await mcp.call('wikiCreateDocument', {
      workspaceName: ws.name,
      title: 'From the example',
      contentJson: JSON.stringify(r.json.examples[0]),
    });
    expect(created.isError).toBe(false);
    expect(created.json.plainText).toBe('Plan\nShip on Friday\nfirst point\ndetail');
  });

  it('wikiCreateDocument creates the document as the key user; bad content is refused and nothing is made', async () => {
    const ws = await createWorkspace(stack, owner);
    const parent = await createDocument(stack, owner, { workspaceId: ws.id, title: 'Parent' });
    const created = await mcp.call('wikiCreateDocument', {
      workspaceName: ws.name,
      title: 'Meeting notes',
      contentJson: JSON.stringify([{ type: 'heading', props: { level: 1 }, content: 'Agenda' }, paragraph('Budget')]),
      parentId: parent.id,
    });
    expect(created.isError).toBe(false);
    expect(created.json).toMatchObject({
      title: 'Meeting notes',
      workspaceId: ws.id,
      parentId: parent.id,
      plainText: 'Agenda\nBudget',
    });
    const stored = await restDocument(owner, created.json.id);
    expect(stored.createdBy).toBe(owner.id);
    expect(texts(stored.content)).toEqual([undefined, 'Budget']);

    const cases: Array<[unknown, RegExp]> = [
      ['[{"type":"paragraf"}]', /contentJson\[0\]\.type must be one of/],
      [
        '[{"type":"paragraph","content":[{"type":"text","text":"a","styles":{"bold":"yes"}}]}]',
        /styles\.bold must be boolean/,
      ],
      ['not json', /not valid JSON/],
      ['{"type":"paragraph"}', /contentJson must be array/],
    ];
    for (const [contentJson, problem] of cases) {
      const refused = await mcp.call('wikiCreateDocument', { workspaceName: ws.name, title: 'Bad', contentJson });
      expect(refused.isError).toBe(true);
      expect(refused.json.error).toMatch(problem);
      expect(Object.keys(refused.json)).toEqual(['error']);
    }
    const missing = await mcp.call('wikiCreateDocument', { workspaceName: ws.name, title: 'No content' });
    expect(missing.json).toEqual({ error: 'Missing parameter contentJson' });
    const unknownWs = await mcp.call('wikiCreateDocument', {
      workspaceName: `nope ${Date.now()}`,
      title: 'x',
      contentJson: '[]',
    });
    expect(unknownWs.json.error).toMatch(/not found or not accessible/);
    expect((await restTitles(owner, ws.id)).sort()).toEqual(['Parent']);
  });

  it('wikiUpdateDocument overwrites title and content; refuses nothing to do, a foreign workspace and archived documents', async () => {
    const ws = await createWorkspace(stack, owner);
    const elsewhere = await createWorkspace(stack, owner);
    const doc = await createDocument(stack, owner, {
      workspaceId: ws.id,
      title: 'Old',
      content: [paragraph('old text')],
    });

    const updated = await mcp.call('wikiUpdateDocument', {
      workspaceName: ws.name,
      documentId: doc.id,
      title: 'New',
      contentJson: JSON.stringify([paragraph('new text')]),
    });
    expect(updated.isError).toBe(false);
    expect(updated.json).toMatchObject({ id: doc.id, title: 'New', plainText: 'new text' });
    const stored = await restDocument(owner, doc.id);
    expect(stored.title).toBe('New');
    expect(texts(stored.content)).toEqual(['new text']);

    const titleOnly = await mcp.call('wikiUpdateDocument', {
      workspaceName: ws.name,
      documentId: doc.id,
      title: 'Newer',
    });
    expect(titleOnly.json).toMatchObject({ title: 'Newer', plainText: 'new text' });

    const nothing = await mcp.call('wikiUpdateDocument', { workspaceName: ws.name, documentId: doc.id });
    expect(nothing.json).toEqual({ error: 'Nothing to update: give title, contentJson or both' });
    const foreign = await mcp.call('wikiUpdateDocument', {
      workspaceName: elsewhere.name,
      documentId: doc.id,
      title: 'x',
    });
    expect(foreign.json.error).toMatch(/is not in workspace/);
    const bad = await mcp.call('wikiUpdateDocument', {
      workspaceName: ws.name,
      documentId: doc.id,
      contentJson: '[{}]',
    });
    expect(bad.json.error).toMatch(/required property 'type'/);
    const badId = await mcp.call('wikiUpdateDocument', { workspaceName: ws.name, documentId: 'abc', title: 'x' });
    expect(badId.json).toEqual({ error: 'documentId must be a UUID' });

    expectStatus(
      await stack.request('PUT', `/api/v1/documents/${doc.id}`, { token: owner.token, body: { isArchived: true } }),
      200,
      'archive',
    );
    const archived = await mcp.call('wikiUpdateDocument', { workspaceName: ws.name, documentId: doc.id, title: 'x' });
    expect(archived.json.error).toMatch(/is archived/);
    expect((await restDocument(owner, doc.id)).title).toBe('Newer');
  });

  it('wikiAppendTextToDocument appends one paragraph per blank-line-separated part', async () => {
    const ws = await createWorkspace(stack, owner);
    const doc = await createDocument(stack, owner, { workspaceId: ws.id, title: 'Log', content: [paragraph('day 1')] });
    const appended = await mcp.call('wikiAppendTextToDocument', {
      workspaceName: ws.name,
      documentId: doc.id,
      textToAppend: 'day 2\nstill day 2\n\n\nday 3\n  \nday 4',
    });
    expect(appended.isError).toBe(false);
    expect(appended.json.plainText).toBe('day 1\nday 2\nstill day 2\nday 3\nday 4');
    const stored = JSON.parse((await restDocument(owner, doc.id)).content);
    expect(stored.map((b: { type: string }) => b.type)).toEqual(['paragraph', 'paragraph', 'paragraph', 'paragraph']);
    expect(texts(JSON.stringify(stored))).toEqual(['day 1', 'day 2\nstill day 2', 'day 3', 'day 4']);

    const blank = await mcp.call('wikiAppendTextToDocument', {
      workspaceName: ws.name,
      documentId: doc.id,
      textToAppend: '\n\n ',
    });
    expect(blank.json).toEqual({ error: 'textToAppend holds no text' });
  });

  it('wikiDeleteDocument archives the document; a second call says it is archived already', async () => {
    const ws = await createWorkspace(stack, owner);
    const doc = await createDocument(stack, owner, { workspaceId: ws.id, title: 'Obsolete' });
    const deleted = await mcp.call('wikiDeleteDocument', { workspaceName: ws.name, documentId: doc.id });
    expect(deleted.isError).toBe(false);
    expect(deleted.json).toMatchObject({ success: true, message: expect.stringContaining('archived') });
    expect((await restDocument(owner, doc.id)).isArchived).toBe(true);
    expect(await restTitles(owner, ws.id)).toEqual([]);

    const again = await mcp.call('wikiDeleteDocument', { workspaceName: ws.name, documentId: doc.id });
    expect(again.json.error).toMatch(/already archived/);
    const read = await mcp.call('wikiGetDocument', { documentId: doc.id });
    expect(read.json.error).toMatch(/is archived/);
  });

  it("another user's workspace and documents are invisible", async () => {
    const stranger = await signInNew(stack, 'stranger');
    const ws = await createWorkspace(stack, stranger);
    const doc = await createDocument(stack, stranger, {
      workspaceId: ws.id,
      title: 'Secret',
      content: [paragraph('hidden')],
    });
    const calls: Array<[string, Record<string, unknown>]> = [
      ['wikiListDocuments', { workspaceId: ws.id }],
      ['wikiListDocumentsInWorkspace', { workspaceName: ws.name }],
      ['wikiSearch', { workspaceId: ws.id, query: 'hidden' }],
      ['wikiGetDocument', { documentId: doc.id }],
      ['wikiCreateDocument', { workspaceName: ws.name, title: 'x', contentJson: '[]' }],
      ['wikiUpdateDocument', { workspaceName: ws.name, documentId: doc.id, title: 'x' }],
      ['wikiAppendTextToDocument', { workspaceName: ws.name, documentId: doc.id, textToAppend: 'x' }],
      ['wikiDeleteDocument', { workspaceName: ws.name, documentId: doc.id }],
    ];
    for (const [name, args] of calls) {
      const r = await mcp.call(name, args);
      expect(r.isError, name).toBe(true);
      expect(r.json.error, name).toMatch(/not found or not accessible/);
    }
    const stored = await restDocument(stranger, doc.id);
    expect(stored).toMatchObject({ title: 'Secret', isArchived: false });
    expect(texts(stored.content)).toEqual(['hidden']);
  });

  it('answers an unknown tool and bad arguments with an error result', async () => {
    expect((await mcp.call('wikiFly')).json).toEqual({ error: 'Unknown tool wikiFly' });
    expect((await mcp.call('wikiGetDocument', {})).json).toEqual({ error: 'Missing parameter documentId' });
    expect((await mcp.call('wikiGetDocument', { documentId: 'x' })).json).toEqual({
      error: 'documentId must be a UUID',
    });
    expect((await mcp.call('wikiListWorkspaces', { colour: 'red' })).json).toEqual({
      error: 'Unknown parameter colour',
    });
    expect((await mcp.call('wikiListWorkspaces', { limit: 'ten' })).json).toEqual({
      error: 'limit must be a whole number',
    });
  });
});

describe.each(TRANSPORTS)("a VIEWER's key over %s", (kind: TransportKind) => {
  it('reads but cannot write', async () => {
    const owner = await signInNew(stack, 'owner');
    const viewer = await signInNew(stack, 'viewer');
    const ws = await createWorkspace(stack, owner);
    await addMember(stack, ws.id, owner, viewer, 'VIEWER');
    const doc = await createDocument(stack, owner, { workspaceId: ws.id, title: 'Policy', content: [paragraph('v1')] });
    const mcp = await connect(stack, (await mcpKeyOf(stack, viewer)).key, kind);
    try {
      expect((await mcp.call('wikiGetDocument', { documentId: doc.id })).json.plainText).toBe('v1');
      const roles = await mcp.call('wikiListUserWorkspaces');
      expect(roles.json.workspaces.find((w: { id: string }) => w.id === ws.id)).toMatchObject({ role: 'VIEWER' });

      const writes: Array<[string, Record<string, unknown>]> = [
        ['wikiCreateDocument', { workspaceName: ws.name, title: 'x', contentJson: '[]' }],
        ['wikiUpdateDocument', { workspaceName: ws.name, documentId: doc.id, title: 'x' }],
        ['wikiAppendTextToDocument', { workspaceName: ws.name, documentId: doc.id, textToAppend: 'x' }],
        ['wikiDeleteDocument', { workspaceName: ws.name, documentId: doc.id }],
      ];
      for (const [name, args] of writes) {
        const r = await mcp.call(name, args);
        expect(r.isError, name).toBe(true);
        expect(r.json.error, name).toMatch(/^Permission too low/);
      }
    } finally {
      await mcp.close();
    }
    const stored = await restDocument(owner, doc.id);
    expect(stored).toMatchObject({ title: 'Policy', isArchived: false });
    expect(texts(stored.content)).toEqual(['v1']);
    expect(await restTitles(owner, ws.id)).toEqual(['Policy']);
  });
});
