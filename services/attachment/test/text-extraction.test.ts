import { mintServiceToken } from '@wiki/auth';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import {
  createDocument,
  createWorkspace,
  eventually,
  noisePng,
  pdfWithText,
  type Stack,
  signInNew,
} from '@wiki/testing';
import { Document, Packer, Paragraph } from 'docx';
import { startAttachmentStack, uploaded } from './helpers.js';

/**
 * Uploads through the gateway have their text extracted after the upload (ARCHITECTURE 5.20),
 * kept in the attachment service, announced by attachment.text_extracted (without the text) and
 * served to other services by GET /internal/attachments/{id}/text.
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

async function textOf(id: string, as: 'search' | null = 'search') {
  const headers: Record<string, string> = as
    ? { 'x-wiki-identity': await mintServiceToken(stack.config.internalTokenSecret, as) }
    : {};
  const res = await fetch(`${stack.config.urls.attachment}/internal/attachments/${id}/text`, { headers });
  return {
    status: res.status,
    body: (await res.json()) as { data?: { text: string; truncated: boolean; fileName: string } },
  };
}

const Extracted = z.object({ data: z.any() });
const announced = (id: string) =>
  db.any(sql.type(Extracted)`
    SELECT envelope->'data' AS data FROM event_outbox
    WHERE type = 'attachment.text_extracted' AND envelope->'data'->>'id' = ${id}`);
const statusOf = (id: string) =>
  db.maybeOneFirst(
    sql.type(z.object({ status: z.string() }))`SELECT status FROM attachment_texts WHERE attachment_id = ${id}`,
  );

describe('text extracted from uploads', () => {
  it('reads PDF, Word, HTML and Markdown uploads, announces each without its text, and serves it to services', async () => {
    const owner = await signInNew(stack, 'Texts');
    const ws = await createWorkspace(stack, owner, { name: 'Texts' });
    const doc = await createDocument(stack, owner, { workspaceId: ws.id, title: 'Files' });
    const upload = (name: string, body: Buffer) => uploaded(stack, owner, ws.id, doc.id, { name, body });
    const word = await Packer.toBuffer(
      new Document({ sections: [{ children: [new Paragraph('Lighthouse budget')] }] }),
    );
    const files = {
      pdf: await upload('contract.pdf', pdfWithText(['Signed contract for the aardvark', 'Page two'])),
      docx: await upload('budget.docx', word),
      html: await upload('page.html', Buffer.from('<!doctype html><p>Ferry <b>times</b></p><script>x()</script>')),
      md: await upload('notes.md', Buffer.from('# Notes\n\nA *quokka* was seen.')),
    };
    const expected = {
      pdf: 'Signed contract for the aardvark\n\nPage two',
      docx: 'Lighthouse budget',
      html: 'Ferry times',
      md: '# Notes\n\nA *quokka* was seen.',
    };
    for (const [kind, file] of Object.entries(files)) {
      await eventually(async () => expect((await textOf(file.id)).status).toBe(200), 15_000);
      const { body } = await textOf(file.id);
      expect(body.data?.text, kind).toBe(expected[kind as keyof typeof expected]);
      expect(body.data).toMatchObject({ truncated: false, fileName: file.fileName });
      const events = await announced(file.id);
      expect(events).toHaveLength(1);
      expect(events[0].data).toEqual({
        id: file.id,
        documentId: doc.id,
        workspaceId: ws.id,
        characters: expected[kind as keyof typeof expected].length,
        truncated: false,
      });
    }
    // Only services may read it.
    expect((await textOf(files.pdf.id, null)).status).toBe(401);
  });

  it('keeps a broken PDF as failed without an event, leaves images alone, and drops the text with its file', async () => {
    const owner = await signInNew(stack, 'Broken');
    const ws = await createWorkspace(stack, owner, { name: 'Broken' });
    const doc = await createDocument(stack, owner, { workspaceId: ws.id, title: 'Files' });
    const broken = await uploaded(stack, owner, ws.id, doc.id, {
      name: 'broken.pdf',
      body: Buffer.from('%PDF-1.4\nthis is not really a PDF'),
    });
    const image = await uploaded(stack, owner, ws.id, doc.id, { name: 'photo.png', body: noisePng(16, 16) });
    const kept = await uploaded(stack, owner, ws.id, doc.id, { name: 'kept.txt', body: Buffer.from('short words') });
    await eventually(async () => expect(await statusOf(broken.id)).toBe('failed'), 15_000);
    await eventually(async () => expect(await statusOf(kept.id)).toBe('text'), 15_000);
    expect(await announced(broken.id)).toEqual([]);
    expect((await textOf(broken.id)).status).toBe(404);
    // The image's event came before the text file's and was handled in order: no row for it.
    expect(await statusOf(image.id)).toBeNull();

    const res = await fetch(`${stack.gatewayUrl}/api/v1/attachments/${kept.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(res.status).toBe(200);
    expect(await statusOf(kept.id)).toBeNull();
    expect((await textOf(kept.id)).status).toBe(404);
  });
});
