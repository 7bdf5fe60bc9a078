import { createHash, randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { get as httpGet, request as httpRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createDatabasePool, type DatabasePool, sql, withAdvisoryLock } from '@wiki/db';
import { LocalStorage, loadStorageSettings } from '@wiki/storage';
import {
  createDocument,
  eventually,
  png,
  rssGrowthDuring,
  type SignedInUser,
  type Stack,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import { spoolDirOf } from '../src/app.js';
import { SWEEP_LOCK, sweepOrphans } from '../src/events/orphan-sweeper.js';
import { framing, keyOf, objectsOf, spoolOf, startAttachmentStack, uploaded } from './helpers.js';

const MiB = 1024 * 1024;

let stack: Stack;
let db: DatabasePool;

beforeAll(async () => {
  stack = await startAttachmentStack(); // UPLOAD_MAX_BYTES at its default, 25 MiB
  db = await createDatabasePool(stack.config.databaseUrls.attachment, { maximumPoolSize: 2 });
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

async function editorWithDocument() {
  const editor = await signInNew(stack, 'Editor');
  const ws = await workspaceWith(stack, editor);
  const doc = await createDocument(stack, editor, { workspaceId: ws.id });
  return { editor, ws, doc };
}

const rowsOf = (documentId: string) =>
  db.oneFirst(sql.unsafe`SELECT count(*)::int AS n FROM attachments WHERE document_id = ${documentId}`);

/** `size` bytes of a repeating pattern, made 64 KiB at a time (the test itself never holds the file). */
function* pattern(size: number): Generator<Buffer> {
  const block = Buffer.alloc(64 * 1024);
  for (let i = 0; i < block.length; i++) block[i] = (i * 31) % 251;
  for (let sent = 0; sent < size; sent += block.length) yield block.subarray(0, Math.min(block.length, size - sent));
}

function sha256Of(size: number): string {
  const hash = createHash('sha256');
  for (const chunk of pattern(size)) hash.update(chunk);
  return hash.digest('hex');
}

/** Posts the upload through the gateway with backpressure, the file streamed from `pattern`. */
function streamUpload(user: SignedInUser, fields: Record<string, string>, size: number) {
  const f = framing(fields, 'big.bin', size);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(`${stack.gatewayUrl}/api/v1/attachments/upload`, {
      method: 'POST',
      headers: { 'content-type': f.contentType, 'content-length': f.length, authorization: `Bearer ${user.token}` },
    });
    req.once('error', reject);
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    Readable.from(
      (function* () {
        yield f.head;
        yield* pattern(size);
        yield f.tail;
      })(),
    ).pipe(req);
  });
}

describe('large files', () => {
  it('takes a 25 MiB upload and serves it back streamed: the process (gateway and service) grows by less than 16 MiB', async () => {
    const { editor, ws, doc } = await editorWithDocument();
    const fields = { workspaceId: ws.id, documentId: doc.id };
    // A small upload first, so that the measurement sees the steady state, not the first use of the code.
    await uploaded(stack, editor, ws.id, doc.id, { name: 'warm.png', body: png(1, 1) });

    const size = 25 * MiB;
    const up = await rssGrowthDuring(() => streamUpload(editor, fields, size));
    expect(up.result.status, up.result.body).toBe(201);
    const a = JSON.parse(up.result.body).data;
    expect(a.fileSize).toBe(size);
    expect(up.growth).toBeLessThan(16 * MiB);
    expect(up.bufferGrowth).toBeLessThan(12 * MiB);

    const down = await rssGrowthDuring(async () => {
      // node:http, whose socket pauses while its reader is behind. The reader takes its time (5 ms
      // after every 256 KiB): a gateway or service that did not wait for it would pile the file up
      // in this process; one that streams holds little, and the chunks already read die at the next
      // collection. At full speed on a fast machine, the chunks that passed between two
      // collections alone came near the limit (a CI run failed at 16.6 MiB).
      const res = await new Promise<IncomingMessage>((resolve, reject) =>
        httpGet(`${stack.gatewayUrl}${a.url}`, { headers: { authorization: `Bearer ${editor.token}` } }, resolve).on(
          'error',
          reject,
        ),
      );
      const hash = createHash('sha256');
      let length = 0;
      let sincePause = 0;
      for await (const chunk of res as AsyncIterable<Buffer>) {
        hash.update(chunk);
        length += chunk.length;
        sincePause += chunk.length;
        if (sincePause >= MiB / 4) {
          sincePause = 0;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
      return { status: res.statusCode, length, sha256: hash.digest('hex') };
    });
    expect(down.result).toEqual({ status: 200, length: size, sha256: sha256Of(size) });
    expect(down.growth).toBeLessThan(16 * MiB);
    expect(down.bufferGrowth).toBeLessThan(12 * MiB);
  });

  it('keeps nothing of an upload cut off half-way', async () => {
    const { editor, ws, doc } = await editorWithDocument();
    const objectsBefore = await objectsOf(stack);
    const f = framing({ workspaceId: ws.id, documentId: doc.id }, 'cut.bin', 10 * MiB);
    const req = httpRequest(`${stack.gatewayUrl}/api/v1/attachments/upload`, {
      method: 'POST',
      headers: { 'content-type': f.contentType, 'content-length': f.length, authorization: `Bearer ${editor.token}` },
    });
    req.on('error', () => undefined); // the reset is what this test does
    req.write(f.head);
    for (const chunk of pattern(2 * MiB)) req.write(chunk);
    // The service has started writing the file...
    await eventually(async () => expect((await spoolOf(stack)).length).toBeGreaterThan(0));
    // ...when the client goes away.
    req.destroy();
    await eventually(async () => expect(await spoolOf(stack)).toEqual([]));
    expect(await objectsOf(stack)).toEqual(objectsBefore);
    expect(await rowsOf(doc.id)).toBe(0);
  });
});

describe('orphan sweep', () => {
  /** A sweep that found the store free (the service's own sweep may hold it for a moment). */
  async function sweepNow(storage: LocalStorage, now?: Date) {
    let result: Awaited<ReturnType<typeof sweepOrphans>> | undefined;
    await eventually(async () => {
      result = await sweepOrphans(db, storage, spoolDirOf(stack.config), { now });
      expect(result.objects).not.toBeNull();
    });
    return result as Awaited<ReturnType<typeof sweepOrphans>>;
  }

  it('removes objects no record names once they are older than the grace period, and stale spool files', async () => {
    const { editor, ws, doc } = await editorWithDocument();
    const kept = await uploaded(stack, editor, ws.id, doc.id, { name: 'kept.png', body: png(4, 4) });
    const storage = new LocalStorage(loadStorageSettings(stack.config).localDir);
    const orphan = `workspaces/${ws.id}/documents/${doc.id}/${randomUUID()}/orphan.bin`;
    await storage.put(orphan, Readable.from([Buffer.from('left behind')]), 11, 'application/octet-stream');
    // Another service's file in the same store (a finished export): not the attachment sweep's.
    const other = `exports/${randomUUID()}/export.pdf`;
    await storage.put(other, Readable.from([Buffer.from('%PDF')]), 4, 'application/pdf');
    const spoolDir = spoolDirOf(stack.config);
    await mkdir(spoolDir, { recursive: true });
    await writeFile(join(spoolDir, `${randomUUID()}.upload`), 'half an upload');

    // Within the grace period nothing goes: it may be an upload about to write its record.
    const early = await sweepNow(storage);
    expect(early).toEqual({ objects: 0, spoolFiles: 0 });
    expect(await objectsOf(stack)).toContain(orphan);

    const later = await sweepNow(storage, new Date(Date.now() + 2 * 60 * 60_000));
    expect(later.objects).toBeGreaterThanOrEqual(1);
    expect(later.spoolFiles).toBe(1);
    const objects = await objectsOf(stack);
    expect(objects).not.toContain(orphan);
    expect(objects).toContain(keyOf(kept));
    expect(objects).toContain(other);
    expect(await spoolOf(stack)).toEqual([]);
  });

  it('sweeps the store on one replica at a time; every replica still sweeps its own spool folder', async () => {
    const { ws, doc } = await editorWithDocument();
    const storage = new LocalStorage(loadStorageSettings(stack.config).localDir);
    const orphan = `workspaces/${ws.id}/documents/${doc.id}/${randomUUID()}/orphan.bin`;
    await storage.put(orphan, Readable.from([Buffer.from('left behind')]), 11, 'application/octet-stream');
    const spoolDir = spoolDirOf(stack.config);
    await mkdir(spoolDir, { recursive: true });
    await writeFile(join(spoolDir, `${randomUUID()}.upload`), 'half an upload');
    const later = new Date(Date.now() + 2 * 60 * 60_000);

    // Another replica sweeping: it holds the lock in the service's database all along.
    const whileHeld = await withAdvisoryLock(db, SWEEP_LOCK, () => sweepOrphans(db, storage, spoolDir, { now: later }));
    expect(whileHeld?.value).toEqual({ objects: null, spoolFiles: 1 });
    expect(await objectsOf(stack)).toContain(orphan);

    // Free again: this one sweeps.
    const after = await sweepNow(storage, later);
    expect(after.objects).toBeGreaterThanOrEqual(1);
    expect(await objectsOf(stack)).not.toContain(orphan);
  });
});
