import { randomUUID } from 'node:crypto';
import { mintIdentityToken, mintServiceToken } from '@wiki/auth';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import {
  type AttachmentText,
  createServiceClient,
  fetchAttachmentText,
  listAttachmentTexts,
} from '@wiki/service-client';
import { createDocument, createWorkspace, eventually, noisePng, type Stack, signInNew } from '@wiki/testing';
import { type Attachment, startAttachmentStack, uploaded } from './helpers.js';

/**
 * Issue 30: what search indexes attachments from, read through the service client the search
 * service uses: one attachment's text (GET /internal/attachments/{id}/text, fetchAttachmentText)
 * and every attachment that has text, page by page, for a reindex (GET /internal/attachments/texts,
 * listAttachmentTexts). The texts are made by the real extraction after real uploads.
 */
let stack: Stack;
let db: DatabasePool;

beforeAll(async () => {
  stack = await startAttachmentStack();
  db = await createDatabasePool(stack.config.databaseUrls.attachment, { maximumPoolSize: 2 });
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

const quiet = { error: () => undefined };
const search = () => createServiceClient({ service: 'search', config: stack.config, logger: quiet });

const statusOf = (id: string) =>
  db.maybeOneFirst(
    sql.type(z.object({ status: z.string() }))`SELECT status FROM attachment_texts WHERE attachment_id = ${id}`,
  );
const extracted = (file: Attachment, status: 'text' | 'failed') =>
  eventually(async () => expect(await statusOf(file.id)).toBe(status), { timeoutMs: 15_000 });

/** Every text of the workspace, `limit` at a time. */
async function allTexts(workspaceId: string, limit: number): Promise<AttachmentText[]> {
  const texts: AttachmentText[] = [];
  for (;;) {
    const page = await listAttachmentTexts(search(), { workspaceId, after: texts.at(-1)?.id, limit });
    texts.push(...page);
    if (page.length < limit) return texts;
  }
}

describe('attachment texts for search', () => {
  it('pages through the attachments that have text in id order, and fetches one by id', async () => {
    const owner = await signInNew(stack, 'Tess Texts');
    const ws = await createWorkspace(stack, owner, { name: 'Texts' });
    const other = await createWorkspace(stack, owner, { name: 'Other texts' });
    const doc = await createDocument(stack, owner, { workspaceId: ws.id, title: 'Files' });
    const otherDoc = await createDocument(stack, owner, { workspaceId: other.id, title: 'Elsewhere' });
    const upload = (name: string, body: string | Buffer, to = { ws: ws.id, doc: doc.id }) =>
      uploaded(stack, owner, to.ws, to.doc, { name, body: Buffer.isBuffer(body) ? body : Buffer.from(body) });
    const files = [
      await upload('notes.txt', 'aardvark notes'),
      await upload('readme.md', '# Quokka'),
      await upload('page.html', '<p>Ferry <b>times</b></p>'),
    ];
    const broken = await upload('broken.pdf', '%PDF-1.4\nthis is not really a PDF');
    const image = await upload('photo.png', noisePng(16, 16));
    const elsewhere = await upload('far.txt', 'far away', { ws: other.id, doc: otherDoc.id });
    for (const file of [...files, elsewhere]) await extracted(file, 'text');
    await extracted(broken, 'failed');

    const ids = files.map((f) => f.id).sort();
    const texts = await allTexts(ws.id, 2);
    // Neither the failed PDF nor the image (no text row), nor the other workspace's file.
    expect(texts.map((t) => t.id)).toEqual(ids);
    const notes = texts.find((t) => t.id === files[0].id);
    expect(notes).toEqual<AttachmentText>({
      id: files[0].id,
      documentId: doc.id,
      workspaceId: ws.id,
      fileName: 'notes.txt',
      text: 'aardvark notes',
      truncated: false,
    });
    expect(texts.find((t) => t.id === files[2].id)?.text).toBe('Ferry times');

    // `after` and `limit`; the default page; every workspace's, still in id order.
    expect(
      (await listAttachmentTexts(search(), { workspaceId: ws.id, after: ids[0], limit: 1 })).map((t) => t.id),
    ).toEqual([ids[1]]);
    const everything = (await listAttachmentTexts(search(), { limit: 100 })).map((t) => t.id);
    expect(everything).toEqual([...everything].sort());
    expect(everything).toEqual(expect.arrayContaining([...ids, elsewhere.id]));
    expect(everything).not.toContain(broken.id);
    expect(everything).not.toContain(image.id);

    expect(await fetchAttachmentText(search(), files[0].id)).toEqual(notes);
    expect(await fetchAttachmentText(search(), broken.id)).toBeNull();
    expect(await fetchAttachmentText(search(), image.id)).toBeNull();
    expect(await fetchAttachmentText(search(), randomUUID())).toBeNull();

    // A deleted attachment's text is gone from both.
    const res = await fetch(`${stack.gatewayUrl}/api/v1/attachments/${files[1].id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(res.status).toBe(200);
    expect((await allTexts(ws.id, 20)).map((t) => t.id)).toEqual(ids.filter((id) => id !== files[1].id));
    expect(await fetchAttachmentText(search(), files[1].id)).toBeNull();
  });

  it('answers service identities only, with a page of 20 by default, and refuses a bad page with 400', async () => {
    const get = async (query: string, identity: string | null) => {
      const res = await fetch(`${stack.config.urls.attachment}/internal/attachments/texts${query}`, {
        headers: identity ? { 'x-wiki-identity': identity } : {},
      });
      return { status: res.status, body: (await res.json()) as { success: boolean; data?: unknown[] } };
    };
    const service = await mintServiceToken(stack.config.internalTokenSecret, 'search');
    const page = await get('', service);
    expect(page.status).toBe(200);
    expect(page.body.success).toBe(true);
    expect(page.body.data?.length).toBeLessThanOrEqual(20);
    expect((await get('', null)).status).toBe(401);
    const owner = await signInNew(stack, 'Not A Service');
    const user = await mintIdentityToken(stack.config.internalTokenSecret, { kind: 'user', userId: owner.id });
    expect((await get('', user)).status).toBe(403);
    for (const bad of ['?limit=0', '?limit=101', '?after=nope', '?workspaceId=x']) {
      const res = await get(bad, service);
      expect(res.status, bad).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
  });
});
