import {
  createDocument,
  createWorkspace,
  eventually,
  expectStatus,
  paragraph,
  pdfWithText,
  type SignedInUser,
  type Stack,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform } from '../../../test/platform.js';
import { type SearchResult, searchAs, startThread, uploadFile } from './helpers.js';

/**
 * ARCHITECTURE 5.20 end to end: comments written to the comment service and a PDF uploaded to the
 * attachment service reach the index through their events; searches go gateway → search with the
 * paging and filters, and the answers say where each match was.
 */
let stack: Stack;
let owner: SignedInUser;
let editor: SignedInUser;
let workspaceId: string;

beforeAll(async () => {
  stack = await startPlatform(['workspace', 'document', 'comment', 'attachment', 'search']);
  [owner, editor] = await Promise.all([signInNew(stack, 'Sara Searcher'), signInNew(stack, 'Eddie Editor')]);
  workspaceId = (await workspaceWith(stack, owner, [[editor, 'EDITOR']])).id;
});
afterAll(async () => {
  await stack?.stop();
});

interface Page {
  status: number;
  total: number;
  hits: SearchResult[];
}

async function page(query: string, extra = '', user = owner, ws = workspaceId): Promise<Page> {
  const res = await searchAs(stack, user, ws, query, extra);
  return { status: res.status, total: Number(res.headers['x-total-count']), hits: res.body.data ?? [] };
}

const comment = (documentId: string, content: string) => startThread(stack, owner, documentId, content);
const upload = (documentId: string, name: string, body: Buffer) =>
  uploadFile(stack, owner, { workspaceId, documentId }, { name, body });

describe('comments and attachments are searchable', () => {
  it('finds a word of a comment and of an attached PDF, says where, and forgets them when deleted', async () => {
    const doc = await createDocument(stack, owner, {
      workspaceId,
      title: 'Supplier review',
      content: [paragraph('Notes from the meeting.')],
    });
    const { threadId, commentId } = await comment(doc.id, 'Should we renew with the albatross shipping line?');
    const pdf = await createDocument(stack, owner, { workspaceId, title: 'Contracts', content: [] });
    const attachmentId = await upload(
      pdf.id,
      'contract.pdf',
      pdfWithText(['Master agreement', 'Clause 7: the pelican warranty']),
    );

    const commented = await eventually(
      async () => {
        const found = await page('albatross');
        expect(found.hits.map((h) => h.id)).toEqual([doc.id]);
        return found;
      },
      { timeoutMs: 20_000 },
    );
    expect(commented.total).toBe(1);
    expect(commented.hits[0]).toMatchObject({
      matchField: 'comment',
      commentThreadId: threadId,
      title: 'Supplier review',
    });
    expect(commented.hits[0].snippet).toContain('<mark>albatross</mark>');

    const attached = await eventually(
      async () => {
        const found = await page('pelican warranty');
        expect(found.hits.map((h) => h.id)).toEqual([pdf.id]);
        return found;
      },
      { timeoutMs: 20_000 },
    );
    expect(attached.hits[0]).toMatchObject({ matchField: 'attachment', attachmentId });
    expect(attached.hits[0].snippet).toContain('<mark>pelican</mark>');
    expect((await page('pelican', '&in=title,content,comments')).total).toBe(0);
    expect((await page('pelican', '&in=attachments')).hits.map((h) => h.id)).toEqual([pdf.id]);

    // An edit replaces the comment's words; deleting the comment and the file removes them.
    expectStatus(
      await stack.request('PUT', `/api/v1/comments/${commentId}`, {
        token: owner.token,
        body: { content: 'Renew with the cormorant line.' },
      }),
      200,
      'edit',
    );
    await eventually(
      async () => {
        expect((await page('cormorant')).hits.map((h) => h.id)).toEqual([doc.id]);
        expect((await page('albatross')).total).toBe(0);
      },
      { timeoutMs: 20_000 },
    );
    expectStatus(
      await stack.request('DELETE', `/api/v1/comments/threads/${threadId}`, { token: owner.token }),
      200,
      'delete thread',
    );
    expectStatus(
      await stack.request('DELETE', `/api/v1/attachments/${attachmentId}`, { token: owner.token }),
      200,
      'delete file',
    );
    await eventually(
      async () => {
        expect((await page('cormorant')).total).toBe(0);
        expect((await page('pelican')).total).toBe(0);
      },
      { timeoutMs: 20_000 },
    );
  });
});

describe('paging and filters', () => {
  it('narrows to a subtree, an author and a time, page after page, with the total in X-Total-Count', async () => {
    const ws = (await workspaceWith(stack, owner, [[editor, 'EDITOR']])).id;
    const section = await createDocument(stack, owner, { workspaceId: ws, title: 'Handbook', content: [] });
    const mine: string[] = [];
    for (let i = 0; i < 5; i++)
      mine.push(
        (
          await createDocument(stack, owner, {
            workspaceId: ws,
            parentId: section.id,
            title: `Kestrel ${i}`,
            content: [],
          })
        ).id,
      );
    const theirs = await createDocument(stack, editor, {
      workspaceId: ws,
      parentId: mine[0],
      title: 'Kestrel by the editor',
      content: [],
    });
    const outside = await createDocument(stack, owner, { workspaceId: ws, title: 'Kestrel elsewhere', content: [] });
    await eventually(async () => expect((await page('kestrel', '', owner, ws)).total).toBe(7), { timeoutMs: 20_000 });

    const below = `&parentId=${section.id}`;
    const first = await page('kestrel', `${below}&limit=4`, owner, ws);
    const second = await page('kestrel', `${below}&limit=4&offset=4`, owner, ws);
    expect([first.total, second.total]).toEqual([6, 6]);
    expect([...first.hits, ...second.hits].map((h) => h.id).sort()).toEqual([...mine, theirs.id].sort());
    expect((await page('kestrel', `${below}&authorId=${editor.id}`, owner, ws)).hits.map((h) => h.id)).toEqual([
      theirs.id,
    ]);

    const later = new Date(Date.now() + 1000).toISOString();
    expect((await page('kestrel', `&updatedAfter=${later}`, owner, ws)).total).toBe(0);
    expect((await page('kestrel', `&updatedBefore=${later}`, owner, ws)).total).toBe(7);
    // A move takes a document (and what is below it) out of the subtree.
    expectStatus(
      await stack.request('PUT', `/api/v1/documents/${mine[0]}/move`, {
        token: owner.token,
        body: { parentId: outside.id, index: 0 },
      }),
      200,
      'move',
    );
    await eventually(async () => expect((await page('kestrel', below, owner, ws)).total).toBe(4), {
      timeoutMs: 20_000,
    });
  });

  it('refuses bad values of every parameter with 400', async () => {
    const ws = (await createWorkspace(stack, owner)).id;
    for (const extra of [
      '&offset=-1',
      '&offset=1001',
      '&offset=two',
      '&parentId=nope',
      '&authorId=123',
      '&updatedAfter=yesterday',
      '&updatedBefore=2026-13-01T00:00:00Z',
      '&updatedAfter=2026-02-01T00:00:00Z&updatedBefore=2026-01-01T00:00:00Z',
      '&in=',
      '&in=titles',
      '&in=title,title',
      '&in=title,,content',
    ]) {
      const res = await searchAs(stack, owner, ws, 'kestrel', extra);
      expect(res.status, extra).toBe(400);
      expect(res.body, extra).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
  });

  it('describes the parameters, the answer header and the match fields in OpenAPI', async () => {
    const res = await stack.request('GET', '/api/v1/openapi.json');
    const operation = res.body.paths['/api/v1/documents/search'].get;
    const names = operation.parameters.map((p: { name: string }) => p.name);
    for (const name of ['offset', 'parentId', 'authorId', 'updatedAfter', 'updatedBefore', 'in'])
      expect(names).toContain(name);
    expect(JSON.stringify(operation.responses['200'])).toContain('x-total-count');
    expect(JSON.stringify(operation.responses['200'])).toContain('attachmentId');
  });
});
