import { createHash, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { createDatabasePool, type DatabasePool } from '@wiki/db';
import {
  createDocument,
  eventually,
  ISO_RE,
  noisePng,
  readOutbox,
  type Stack,
  signInNew,
  UUID_RE,
  workspaceWith,
} from '@wiki/testing';
import {
  type Attachment,
  fileUrl,
  framing,
  getAs,
  gifHtmlPolyglot,
  keyOf,
  objectsOf,
  spoolOf,
  startAttachmentStack,
  uploadAs,
  uploaded,
} from './helpers.js';

const MAX = 1024 * 1024;

let stack: Stack;
let db: DatabasePool;

beforeAll(async () => {
  stack = await startAttachmentStack({ UPLOAD_MAX_BYTES: String(MAX) });
  db = await createDatabasePool(stack.config.databaseUrls.attachment, { maximumPoolSize: 2 });
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

/** An owner, an editor, a commenter and a viewer in a new workspace with one document. */
async function team() {
  const [owner, editor, commenter, viewer] = await Promise.all(
    ['Owner', 'Editor', 'Commenter', 'Viewer'].map((n) => signInNew(stack, n)),
  );
  const ws = await workspaceWith(stack, owner, [
    [editor, 'EDITOR'],
    [commenter, 'COMMENTER'],
    [viewer, 'VIEWER'],
  ]);
  const doc = await createDocument(stack, owner, { workspaceId: ws.id, title: 'With files' });
  return { owner, editor, commenter, viewer, ws, doc };
}

const pngFile = (name = 'photo.png') => ({ name, contentType: 'image/png', body: noisePng(640, 480) });

async function rowsOf(documentId: string): Promise<number> {
  const { sql } = await import('@wiki/db');
  return db.oneFirst(
    sql.unsafe`SELECT count(*)::int AS n FROM attachments WHERE document_id = ${documentId}`,
  ) as Promise<number>;
}

describe('upload', () => {
  it('stores a file of an EDITOR with its type from the bytes and an image size, and says so in an event', async () => {
    const { editor, ws, doc } = await team();
    const file = pngFile('Ferien am Meer.png');
    const res = await uploadAs(stack, editor, { workspaceId: ws.id, documentId: doc.id }, file);
    expect(res.status).toBe(201);
    const a = res.body.data;
    expect(a).toEqual({
      id: expect.stringMatching(UUID_RE),
      documentId: doc.id,
      fileName: 'Ferien am Meer.png',
      // The stored PNG, re-encoded without metadata: about as long as these incompressible pixels.
      fileSize: expect.any(Number),
      mimeType: 'image/png',
      url: expect.stringMatching(/^\/api\/v1\/attachments\/file\?url=/),
      width: 640,
      height: 480,
      createdAt: expect.stringMatching(ISO_RE),
    });
    expect(a.fileSize).toBeGreaterThan(640 * 480 * 3);
    expect(keyOf(a)).toBe(`workspaces/${ws.id}/documents/${doc.id}/${a.id}/Ferien_am_Meer.png`);
    const events = await readOutbox(db, 'attachment.uploaded');
    expect(events.find((e) => e.data.id === a.id)?.data).toEqual({
      id: a.id,
      documentId: doc.id,
      workspaceId: ws.id,
      storageKey: keyOf(a),
    });
    // The spool file is gone once the object is stored.
    expect(await spoolOf(stack)).toEqual([]);
  });

  it('takes the ids before or after the file', async () => {
    const { editor, ws, doc } = await team();
    const res = await uploadAs(stack, editor, { workspaceId: ws.id, documentId: doc.id }, pngFile(), 'first');
    expect(res.status).toBe(201);
  });

  it.each([
    ['VIEWER', 'viewer', 403],
    ['COMMENTER', 'commenter', 403],
  ] as const)('refuses a %s (403) and stores nothing', async (_role, who, status) => {
    const t = await team();
    for (const fileAt of ['first', 'last'] as const) {
      const res = await uploadAs(stack, t[who], { workspaceId: t.ws.id, documentId: t.doc.id }, pngFile(), fileAt);
      expect(res.status).toBe(status);
      expect(res.body.error?.code).toBe('FORBIDDEN');
    }
    expect(await rowsOf(t.doc.id)).toBe(0);
  });

  it('refuses a non-member with 404, and a document of another workspace with 404', async () => {
    const t = await team();
    const stranger = await signInNew(stack, 'Stranger');
    const res = await uploadAs(stack, stranger, { workspaceId: t.ws.id, documentId: t.doc.id }, pngFile());
    expect(res.status).toBe(404);
    const otherDoc = await createDocument(stack, stranger);
    const cross = await uploadAs(stack, t.editor, { workspaceId: t.ws.id, documentId: otherDoc.id }, pngFile());
    expect(cross.status).toBe(404);
    const missing = await uploadAs(stack, t.editor, { workspaceId: t.ws.id, documentId: randomUUID() }, pngFile());
    expect(missing.status).toBe(404);
    expect(await rowsOf(t.doc.id)).toBe(0);
    expect(await rowsOf(otherDoc.id)).toBe(0);
  });

  it('needs a signed-in user', async () => {
    const t = await team();
    const res = await uploadAs(stack, null, { workspaceId: t.ws.id, documentId: t.doc.id }, pngFile());
    expect(res.status).toBe(401);
  });

  it('answers bad forms with 400 or 415 naming the problem, and stores nothing', async () => {
    const t = await team();
    const before = (await objectsOf(stack)).length;
    const ids = { workspaceId: t.ws.id, documentId: t.doc.id };
    const noFile = await uploadAs(stack, t.editor, ids, null);
    expect(noFile.status).toBe(400);
    expect(noFile.body.error?.details).toEqual([{ field: 'file', message: 'is required' }]);
    const noIds = await uploadAs(stack, t.editor, {}, pngFile());
    expect(noIds.status).toBe(400);
    expect(noIds.body.error?.details).toEqual([
      { field: 'workspaceId', message: 'is required' },
      { field: 'documentId', message: 'is required' },
    ]);
    const badId = await uploadAs(stack, t.editor, { ...ids, documentId: 'not-a-uuid' }, pngFile(), 'first');
    expect(badId.status).toBe(400);
    expect(badId.body.error?.details).toEqual([{ field: 'documentId', message: 'must be a valid uuid' }]);
    const empty = await uploadAs(stack, t.editor, ids, { name: 'empty.txt', body: Buffer.alloc(0) });
    expect(empty.status).toBe(400);
    const json = await stack.request('POST', '/api/v1/attachments/upload', { token: t.editor.token, body: ids });
    expect(json.status).toBe(415);
    expect(json.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(await rowsOf(t.doc.id)).toBe(0);
    expect((await objectsOf(stack)).length).toBe(before);
    expect(await spoolOf(stack)).toEqual([]);
  });

  it('refuses a file over UPLOAD_MAX_BYTES with 413 and stores nothing, announced or not', async () => {
    const t = await team();
    const before = (await objectsOf(stack)).length;
    const ids = { workspaceId: t.ws.id, documentId: t.doc.id };
    // Announced: refused before it is read.
    const big = await uploadAs(stack, t.editor, ids, { name: 'big.bin', body: Buffer.alloc(MAX + 100 * 1024, 1) });
    expect(big.status).toBe(413);
    expect(big.body.error?.code).toBe('PAYLOAD_TOO_LARGE');
    // One byte over, within the form's slack: found while it is read.
    const justOver = await uploadAs(stack, t.editor, ids, { name: 'over.bin', body: Buffer.alloc(MAX + 1, 1) });
    expect(justOver.status).toBe(413);
    // Exactly the limit is fine.
    const exact = await uploadAs(stack, t.editor, ids, { name: 'exact.bin', body: Buffer.alloc(MAX, 1) });
    expect(exact.status).toBe(201);
    expect(await rowsOf(t.doc.id)).toBe(1);
    expect((await objectsOf(stack)).length).toBe(before + 1);
    expect(await spoolOf(stack)).toEqual([]);
    // The connection the refusals travelled on still serves the next request.
    const after = await getAs(stack, t.editor, `/api/v1/attachments/document/${t.doc.id}`);
    expect(after.status).toBe(200);
  });

  it('streams the file without a Content-Length and still cuts it at UPLOAD_MAX_BYTES', async () => {
    const t = await team();
    const { multipart } = await import('./helpers.js');
    const { body, contentType } = multipart(
      { workspaceId: t.ws.id, documentId: t.doc.id },
      { name: 'chunked.bin', body: Buffer.alloc(MAX * 2, 7) },
    );
    const chunks = async function* () {
      for (let i = 0; i < body.length; i += 64 * 1024) yield body.subarray(i, i + 64 * 1024);
    };
    const res = await fetch(`${stack.gatewayUrl}/api/v1/attachments/upload`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${t.editor.token}` },
      body: ReadableStream.from(chunks()),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await rowsOf(t.doc.id)).toBe(0);
    expect(await spoolOf(stack)).toEqual([]);
  });
});

describe('list', () => {
  it('lists a document’s attachments, oldest first, to every member; 404 to others', async () => {
    const t = await team();
    const a = await uploaded(stack, t.editor, t.ws.id, t.doc.id, pngFile('a.png'));
    const b = await uploaded(stack, t.owner, t.ws.id, t.doc.id, { name: 'b.txt', body: Buffer.from('hello') });
    for (const who of [t.viewer, t.commenter, t.editor, t.owner]) {
      const res = await getAs(stack, who, `/api/v1/attachments/document/${t.doc.id}`);
      expect(res.status).toBe(200);
      expect(res.body.data.map((x: Attachment) => x.id)).toEqual([a.id, b.id]);
    }
    const stranger = await signInNew(stack, 'Stranger');
    expect((await getAs(stack, stranger, `/api/v1/attachments/document/${t.doc.id}`)).status).toBe(404);
    expect((await getAs(stack, t.owner, `/api/v1/attachments/document/${randomUUID()}`)).status).toBe(404);
    expect((await getAs(stack, t.owner, '/api/v1/attachments/document/nope')).status).toBe(400);
    expect((await getAs(stack, null, `/api/v1/attachments/document/${t.doc.id}`)).status).toBe(401);
  });
});

describe('file serving', () => {
  it('serves the bytes with their type, inline for a raster image, always nosniff and sandboxed', async () => {
    const t = await team();
    const a = await uploaded(stack, t.editor, t.ws.id, t.doc.id, pngFile());
    const res = await getAs(stack, t.viewer, a.url);
    expect(res.status).toBe(200);
    // The stored bytes (the PNG as cleaned on arrival), whole, under the ETag of their SHA-256.
    expect(res.bytes.length).toBe(a.fileSize);
    expect(res.headers.get('etag')).toBe(`"${createHash('sha256').update(res.bytes).digest('hex').slice(0, 32)}"`);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-length')).toBe(String(a.fileSize));
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="photo.png"; filename*=UTF-8''photo.png`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe('sandbox');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
  });

  it('answers ranges with 206, ETag matches with 304, and impossible ranges with 416', async () => {
    const t = await team();
    const body = Buffer.from('0123456789abcdefghij');
    const a = await uploaded(stack, t.editor, t.ws.id, t.doc.id, { name: 'digits.txt', body });
    const part = await getAs(stack, t.editor, a.url, { range: 'bytes=2-5' });
    expect(part.status).toBe(206);
    expect(part.bytes.toString()).toBe('2345');
    expect(part.headers.get('content-range')).toBe('bytes 2-5/20');
    expect(part.headers.get('content-length')).toBe('4');
    expect(part.headers.get('x-content-type-options')).toBe('nosniff');
    const tail = await getAs(stack, t.editor, a.url, { range: 'bytes=-3' });
    expect(tail.status).toBe(206);
    expect(tail.bytes.toString()).toBe('hij');
    const open = await getAs(stack, t.editor, a.url, { range: 'bytes=18-' });
    expect(open.bytes.toString()).toBe('ij');
    const beyond = await getAs(stack, t.editor, a.url, { range: 'bytes=20-' });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe('bytes */20');

    const etag = part.headers.get('etag') as string;
    const same = await getAs(stack, t.editor, a.url, { 'if-none-match': etag });
    expect(same.status).toBe(304);
    expect(same.bytes.length).toBe(0);
    expect(same.headers.get('etag')).toBe(etag);
    const changed = await getAs(stack, t.editor, a.url, { 'if-none-match': '"something-else"' });
    expect(changed.status).toBe(200);
    const stale = await getAs(stack, t.editor, a.url, { range: 'bytes=0-1', 'if-range': '"old"' });
    expect(stale.status).toBe(200);
    expect(stale.bytes.toString()).toBe(body.toString());
  });

  it('keeps uploads that a browser would run from running: SVG with a script, HTML, a polyglot, a lying type', async () => {
    const t = await team();
    const svg = await uploaded(stack, t.editor, t.ws.id, t.doc.id, {
      name: 'logo.svg',
      contentType: 'image/svg+xml',
      body: Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="20"><script>alert(1)</script></svg>',
      ),
    });
    expect(svg.mimeType).toBe('image/svg+xml');
    const html = await uploaded(stack, t.editor, t.ws.id, t.doc.id, {
      name: 'cat.png',
      contentType: 'image/png', // the claim; the bytes are a page
      body: Buffer.from('<!DOCTYPE html><html><script>fetch("/api/v1/users/me")</script></html>'),
    });
    expect(html.mimeType).toBe('text/html');
    const poly = await uploaded(stack, t.editor, t.ws.id, t.doc.id, {
      name: 'poly.gif',
      contentType: 'text/html',
      body: gifHtmlPolyglot(3, 4),
    });
    expect(poly).toMatchObject({ mimeType: 'image/gif', width: 3, height: 4 });
    const lyingPng = await uploaded(stack, t.editor, t.ws.id, t.doc.id, {
      name: 'page.html',
      contentType: 'text/html',
      body: noisePng(2, 2),
    });
    expect(lyingPng.mimeType).toBe('image/png');

    for (const [a, type, disposition] of [
      [svg, 'image/svg+xml', 'attachment'],
      [html, 'text/html', 'attachment'],
      [poly, 'image/gif', 'inline'],
      [lyingPng, 'image/png', 'inline'],
    ] as const) {
      const res = await getAs(stack, t.viewer, a.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('content-disposition')?.startsWith(`${disposition};`)).toBe(true);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBe('sandbox');
    }
  });

  it('names a file in Content-Disposition in both forms (RFC 5987)', async () => {
    const t = await team();
    const a = await uploaded(stack, t.editor, t.ws.id, t.doc.id, {
      name: 'Prüfbericht Q3 報告.pdf',
      body: Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n'),
    });
    expect(a.mimeType).toBe('application/pdf');
    expect(a.fileName).toBe('Prüfbericht Q3 報告.pdf');
    const res = await getAs(stack, t.editor, a.url);
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="Pr_fbericht Q3 __.pdf"; filename*=UTF-8''Pr%C3%BCfbericht%20Q3%20%E5%A0%B1%E5%91%8A.pdf`,
    );
  });

  it('serves only keys of records: traversal, encoded, absolute and made-up keys are 404', async () => {
    const t = await team();
    const a = await uploaded(stack, t.editor, t.ws.id, t.doc.id, pngFile());
    const key = keyOf(a);
    for (const bad of [
      '../../../../etc/passwd',
      `${key}/../../../../../../etc/passwd`,
      `workspaces/${t.ws.id}/documents/${t.doc.id}/../../../../etc/passwd`,
      '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '..%2F..%2Fetc%2Fpasswd',
      '/etc/passwd',
      `/${key}`,
      `${key}/`,
      key.replace(a.id, randomUUID()),
      'workspaces',
    ]) {
      const res = await getAs(stack, t.owner, fileUrl(bad));
      expect(res.status, bad).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    // And the raw query string, not encoded by the client.
    expect((await getAs(stack, t.owner, '/api/v1/attachments/file?url=../../etc/passwd')).status).toBe(404);
    expect((await getAs(stack, t.owner, '/api/v1/attachments/file')).status).toBe(400);
  });

  it('serves a file to members of its workspace only, not to members of another', async () => {
    const t = await team();
    const a = await uploaded(stack, t.editor, t.ws.id, t.doc.id, pngFile());
    const other = await signInNew(stack, 'Other');
    await createDocument(stack, other); // a member elsewhere, with documents of their own
    const res = await getAs(stack, other, a.url);
    expect(res.status).toBe(404);
    expect((await getAs(stack, null, a.url)).status).toBe(404);
  });

  it('serves a file to anyone while its document is published and not archived', async () => {
    const t = await team();
    const a = await uploaded(stack, t.editor, t.ws.id, t.doc.id, pngFile());
    const stranger = await signInNew(stack, 'Reader');
    expect((await getAs(stack, null, a.url)).status).toBe(404);

    expect(
      (await stack.request('POST', `/api/v1/documents/${t.doc.id}/publish`, { token: t.owner.token })).status,
    ).toBe(200);
    const anonymous = await getAs(stack, null, a.url);
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('content-security-policy')).toBe('sandbox');
    expect((await getAs(stack, stranger, a.url)).status).toBe(200);
    // A bad token is refused, not taken for nobody.
    const bad = await fetch(`${stack.gatewayUrl}${a.url}`, { headers: { authorization: 'Bearer nonsense' } });
    expect(bad.status).toBe(401);
    // Listing stays for members.
    expect((await getAs(stack, stranger, `/api/v1/attachments/document/${t.doc.id}`)).status).toBe(404);

    const archived = await stack.request('PUT', `/api/v1/documents/${t.doc.id}`, {
      token: t.owner.token,
      body: { isArchived: true },
    });
    expect(archived.status).toBe(200);
    expect((await getAs(stack, null, a.url)).status).toBe(404);
    expect((await getAs(stack, t.viewer, a.url)).status).toBe(200); // members still read it

    await stack.request('PUT', `/api/v1/documents/${t.doc.id}`, { token: t.owner.token, body: { isArchived: false } });
    expect((await getAs(stack, null, a.url)).status).toBe(200);
    await stack.request('POST', `/api/v1/documents/${t.doc.id}/unpublish`, { token: t.owner.token });
    expect((await getAs(stack, null, a.url)).status).toBe(404);
  });
});

describe('more of the rules', () => {
  it('an archived workspace takes its files offline for everyone, its members and published documents included', async () => {
    const t = await team();
    const a = await uploaded(stack, t.editor, t.ws.id, t.doc.id, pngFile());
    await stack.request('POST', `/api/v1/documents/${t.doc.id}/publish`, { token: t.owner.token });
    expect((await getAs(stack, null, a.url)).status).toBe(200);
    const archived = await stack.request('PUT', `/api/v1/workspaces/${t.ws.id}`, {
      token: t.owner.token,
      body: { isArchived: true },
    });
    expect(archived.status).toBe(200);
    // The membership projection hears of it through the workspace's event.
    await eventually(async () => expect((await getAs(stack, null, a.url)).status).toBe(404));
    expect((await getAs(stack, t.viewer, a.url)).status).toBe(404);
  });

  it('answers HEAD with the headers of the file and no body', async () => {
    const t = await team();
    const a = await uploaded(stack, t.editor, t.ws.id, t.doc.id, pngFile());
    const res = await fetch(`${stack.gatewayUrl}${a.url}`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${t.viewer.token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(a.fileSize));
    expect(res.headers.get('content-security-policy')).toBe('sandbox');
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('takes one file per upload: a second file part is refused and nothing is stored', async () => {
    const t = await team();
    const { multipart } = await import('./helpers.js');
    const one = multipart({ workspaceId: t.ws.id, documentId: t.doc.id }, pngFile('one.png'));
    // The same form with a second file part before the closing boundary.
    const boundary = one.contentType.split('boundary=')[1];
    const second = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="two.txt"\r\n\r\nsecond\r\n--${boundary}--\r\n`,
    );
    const body = Buffer.concat([one.body.subarray(0, one.body.length - `--${boundary}--\r\n`.length), second]);
    const res = await fetch(`${stack.gatewayUrl}/api/v1/attachments/upload`, {
      method: 'POST',
      headers: { 'content-type': one.contentType, authorization: `Bearer ${t.editor.token}` },
      body,
    });
    expect(res.status).toBe(413);
    expect(await rowsOf(t.doc.id)).toBe(0);
    expect(await spoolOf(stack)).toEqual([]);
  });

  it('describes its four routes in its OpenAPI document', async () => {
    const res = await fetch(`${stack.serviceUrls.attachment}/openapi.json`);
    const paths = Object.keys(((await res.json()) as { paths: Record<string, unknown> }).paths).sort();
    expect(paths).toEqual([
      '/api/v1/attachments/document/{documentId}',
      '/api/v1/attachments/file',
      '/api/v1/attachments/upload',
      '/api/v1/attachments/{id}',
    ]);
  });
});

describe('delete', () => {
  it('removes the record and the object for an EDITOR, with an event; 403 below, 404 for others and after', async () => {
    const t = await team();
    const a = await uploaded(stack, t.editor, t.ws.id, t.doc.id, pngFile());
    const key = keyOf(a);
    expect(await objectsOf(stack)).toContain(key);

    expect((await stack.request('DELETE', `/api/v1/attachments/${a.id}`, { token: t.viewer.token })).status).toBe(403);
    expect((await stack.request('DELETE', `/api/v1/attachments/${a.id}`, { token: t.commenter.token })).status).toBe(
      403,
    );
    const stranger = await signInNew(stack, 'Stranger');
    expect((await stack.request('DELETE', `/api/v1/attachments/${a.id}`, { token: stranger.token })).status).toBe(404);
    expect((await stack.request('DELETE', '/api/v1/attachments/nope', { token: t.editor.token })).status).toBe(400);
    expect(await objectsOf(stack)).toContain(key);

    const res = await stack.request('DELETE', `/api/v1/attachments/${a.id}`, { token: t.editor.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await objectsOf(stack)).not.toContain(key);
    expect((await getAs(stack, t.editor, a.url)).status).toBe(404);
    expect((await getAs(stack, t.editor, `/api/v1/attachments/document/${t.doc.id}`)).body.data).toEqual([]);
    const events = await readOutbox(db, 'attachment.deleted');
    expect(events.find((e) => e.data.id === a.id)?.data.storageKey).toBe(key);
    expect((await stack.request('DELETE', `/api/v1/attachments/${a.id}`, { token: t.editor.token })).status).toBe(404);
  });
});

describe('archived documents', () => {
  const archive = (t: Awaited<ReturnType<typeof team>>, isArchived: boolean) =>
    stack.request('PUT', `/api/v1/documents/${t.doc.id}`, { token: t.owner.token, body: { isArchived } });
  const eventsOf = async (documentId: string) =>
    (await readOutbox(db, 'attachment.uploaded')).filter((e) => e.data.documentId === documentId);

  it('refuses an upload to an archived document with 409, ids before or after the file, and stores nothing', async () => {
    const t = await team();
    const objectsBefore = await objectsOf(stack);
    expect((await archive(t, true)).status).toBe(200);
    for (const fileAt of ['first', 'last'] as const) {
      const res = await uploadAs(stack, t.editor, { workspaceId: t.ws.id, documentId: t.doc.id }, pngFile(), fileAt);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({
        code: 'CONFLICT',
        message: 'The document is archived: restore it before adding files to it',
      });
    }
    expect(await rowsOf(t.doc.id)).toBe(0);
    expect(await eventsOf(t.doc.id)).toEqual([]);
    expect(await objectsOf(stack)).toEqual(objectsBefore);
    expect(await spoolOf(stack)).toEqual([]);
    // Restored, it takes files again.
    expect((await archive(t, false)).status).toBe(200);
    expect((await uploadAs(stack, t.editor, { workspaceId: t.ws.id, documentId: t.doc.id }, pngFile())).status).toBe(
      201,
    );
  });

  it('refuses an upload whose document was archived while its bytes arrived (its ids came first)', async () => {
    const t = await team();
    const objectsBefore = await objectsOf(stack);
    const size = 512 * 1024;
    const f = framing({ workspaceId: t.ws.id, documentId: t.doc.id }, 'late.bin', size);
    const req = httpRequest(`${stack.gatewayUrl}/api/v1/attachments/upload`, {
      method: 'POST',
      headers: { 'content-type': f.contentType, 'content-length': f.length, authorization: `Bearer ${t.editor.token}` },
    });
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.once('error', reject);
      req.once('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      });
    });
    req.write(f.head);
    req.write(Buffer.alloc(size / 2, 1));
    // The ids were checked and the file is being written...
    await eventually(async () => expect((await spoolOf(stack)).length).toBeGreaterThan(0));
    // ...when the document is archived; then the rest of the file comes.
    expect((await archive(t, true)).status).toBe(200);
    req.end(Buffer.concat([Buffer.alloc(size / 2, 2), f.tail]));
    const res = await answer;
    expect(res.status, res.body).toBe(409);
    expect(JSON.parse(res.body).error.code).toBe('CONFLICT');
    expect(await rowsOf(t.doc.id)).toBe(0);
    expect(await eventsOf(t.doc.id)).toEqual([]);
    expect(await objectsOf(stack)).toEqual(objectsBefore);
    expect(await spoolOf(stack)).toEqual([]);
  });

  it('refuses an upload to a deleted document with 404 and stores nothing', async () => {
    const t = await team();
    const objectsBefore = await objectsOf(stack);
    expect((await stack.request('DELETE', `/api/v1/documents/${t.doc.id}`, { token: t.owner.token })).status).toBe(200);
    const res = await uploadAs(stack, t.editor, { workspaceId: t.ws.id, documentId: t.doc.id }, pngFile());
    expect(res.status).toBe(404);
    expect(await rowsOf(t.doc.id)).toBe(0);
    expect(await eventsOf(t.doc.id)).toEqual([]);
    expect(await objectsOf(stack)).toEqual(objectsBefore);
  });
});

describe('deletions of documents and workspaces', () => {
  it('a deleted document takes its attachments and their objects along', async () => {
    const t = await team();
    const child = await createDocument(stack, t.owner, { workspaceId: t.ws.id, parentId: t.doc.id });
    const keep = await createDocument(stack, t.owner, { workspaceId: t.ws.id });
    const a = await uploaded(stack, t.editor, t.ws.id, t.doc.id, pngFile());
    const b = await uploaded(stack, t.editor, t.ws.id, child.id, pngFile());
    const c = await uploaded(stack, t.editor, t.ws.id, keep.id, pngFile());
    const res = await stack.request('DELETE', `/api/v1/documents/${t.doc.id}/cascade`, { token: t.owner.token });
    expect(res.status).toBe(200);
    await eventually(async () => {
      const objects = await objectsOf(stack);
      expect(objects).not.toContain(keyOf(a));
      expect(objects).not.toContain(keyOf(b));
      expect(await rowsOf(t.doc.id)).toBe(0);
      expect(await rowsOf(child.id)).toBe(0);
    });
    expect(await objectsOf(stack)).toContain(keyOf(c));
    expect((await getAs(stack, t.owner, c.url)).status).toBe(200);
    // An upload to the deleted document now finds it gone.
    const late = await uploadAs(stack, t.editor, { workspaceId: t.ws.id, documentId: t.doc.id }, pngFile());
    expect(late.status).toBe(404);
  });

  it('an upload that checked its document before the deletion was applied stores nothing after it', async () => {
    const t = await team();
    const before = await objectsOf(stack);
    // The deletion's tombstone as the consumer writes it, while the document service still has the document.
    const { sql } = await import('@wiki/db');
    await db.query(sql.unsafe`INSERT INTO removed_owners (id, kind) VALUES (${t.doc.id}, 'document')`);
    const res = await uploadAs(stack, t.editor, { workspaceId: t.ws.id, documentId: t.doc.id }, pngFile());
    expect(res.status).toBe(404);
    expect(await rowsOf(t.doc.id)).toBe(0);
    expect(await objectsOf(stack)).toEqual(before);
  });

  it('a deleted workspace takes all its attachments along', async () => {
    const t = await team();
    const a = await uploaded(stack, t.editor, t.ws.id, t.doc.id, pngFile());
    const res = await stack.request('DELETE', `/api/v1/workspaces/${t.ws.id}`, { token: t.owner.token });
    expect(res.status).toBe(200);
    await eventually(async () => {
      expect(await objectsOf(stack)).not.toContain(keyOf(a));
      expect(await rowsOf(t.doc.id)).toBe(0);
    });
  });
});
