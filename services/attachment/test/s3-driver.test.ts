import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { createDatabasePool, type DatabasePool } from '@wiki/db';
import { createDocument, eventually, noisePng, png, type Stack, signInNew, workspaceWith } from '@wiki/testing';
import { S3Storage } from '../../../libs/storage/src/s3.js';
import { S3RVER_KEY, startTestS3, type TestS3 } from '../../../libs/storage/test/s3-server.js';
import { spoolDirOf } from '../src/app.js';
import { sweepOrphans } from '../src/events/orphan-sweeper.js';
import { getAs, keyOf, objectsOf, startAttachmentStack, uploaded } from './helpers.js';

/** The service with STORAGE_DRIVER=s3 against a real S3-protocol server: the same behaviour, bytes elsewhere. */
let s3: TestS3;
let stack: Stack;
let db: DatabasePool;
let bucket: S3Storage;

beforeAll(async () => {
  s3 = await startTestS3();
  stack = await startAttachmentStack(s3.env('wiki-attachments'));
  db = await createDatabasePool(stack.config.databaseUrls.attachment, { maximumPoolSize: 2 });
  bucket = new S3Storage({
    endpoint: s3.endpoint,
    bucket: 'wiki-attachments',
    accessKey: S3RVER_KEY,
    secretKey: S3RVER_KEY,
    region: 'us-east-1',
  });
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
  await s3?.close();
});

describe('STORAGE_DRIVER=s3', () => {
  it('stores uploads in the bucket (the service made it), serves them with ranges, and deletes them there', async () => {
    const editor = await signInNew(stack, 'Editor');
    const ws = await workspaceWith(stack, editor);
    const doc = await createDocument(stack, editor, { workspaceId: ws.id });
    const a = await uploaded(stack, editor, ws.id, doc.id, { name: 'chart.png', body: noisePng(128, 64) });
    expect(a).toMatchObject({ mimeType: 'image/png', width: 128, height: 64 });
    expect((await bucket.stat(keyOf(a)))?.size).toBe(a.fileSize);
    expect(await objectsOf(stack)).toEqual([]); // nothing in the local folder

    const whole = await getAs(stack, editor, a.url);
    expect(whole.status).toBe(200);
    expect(whole.bytes.length).toBe(a.fileSize);
    const part = await getAs(stack, editor, a.url, { range: 'bytes=100-199' });
    expect(part.status).toBe(206);
    expect(part.bytes.equals(whole.bytes.subarray(100, 200))).toBe(true);

    expect((await stack.request('DELETE', `/api/v1/attachments/${a.id}`, { token: editor.token })).status).toBe(200);
    expect(await bucket.stat(keyOf(a))).toBeNull();
  });

  it('removes the objects of a deleted document from the bucket, and sweeps orphans there', async () => {
    const editor = await signInNew(stack, 'Editor');
    const ws = await workspaceWith(stack, editor);
    const doc = await createDocument(stack, editor, { workspaceId: ws.id });
    const a = await uploaded(stack, editor, ws.id, doc.id, { name: 'a.png', body: png(1, 1) });
    await stack.request('DELETE', `/api/v1/documents/${doc.id}`, { token: editor.token });
    await eventually(async () => expect(await bucket.stat(keyOf(a))).toBeNull());

    const orphan = `workspaces/${ws.id}/documents/${randomUUID()}/${randomUUID()}/orphan.bin`;
    await bucket.put(orphan, Readable.from([Buffer.from('orphan')]), 6, 'application/octet-stream');
    // Retried while the service's own sweep holds the store (one replica at a time).
    await eventually(async () => {
      const swept = await sweepOrphans(db, bucket, spoolDirOf(stack.config), {
        now: new Date(Date.now() + 2 * 60 * 60_000),
      });
      expect(swept.objects).toBeGreaterThanOrEqual(1);
    });
    expect(await bucket.stat(orphan)).toBeNull();
  });
});
