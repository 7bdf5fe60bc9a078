import { randomUUID } from 'node:crypto';
import { mintIdentityToken, mintServiceToken } from '@wiki/auth';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { createServiceClient, rollbackImportFiles, storeImportFile } from '@wiki/service-client';
import { LocalStorage, loadStorageSettings } from '@wiki/storage';
import {
  createDocument,
  createWorkspace,
  eventually,
  png,
  readOutbox,
  type SignedInUser,
  type Stack,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import { IMPORT_FILE_GRACE_MS, sweepImportFiles } from '../src/events/import-file-sweep.js';
import { type FilePart, getAs, keyOf, multipart, objectsOf, startAttachmentStack } from './helpers.js';

const MAX = 64 * 1024;

/**
 * POST /internal/attachments and DELETE /internal/attachments/import/{importId} (ARCHITECTURE
 * 5.19): an import's files, stored before their documents exist, under the upload's rules, and
 * removed by the import's rollback.
 */
describe('files of an import (service routes)', () => {
  let stack: Stack;
  let pool: DatabasePool;
  let owner: SignedInUser;
  let viewer: SignedInUser;
  let ws: string;

  beforeAll(async () => {
    stack = await startAttachmentStack({ UPLOAD_MAX_BYTES: String(MAX) });
    pool = await createDatabasePool(stack.config.databaseUrls.attachment, { maximumPoolSize: 2 });
    [owner, viewer] = await Promise.all([signInNew(stack, 'Ida Importer'), signInNew(stack, 'Vic Viewer')]);
    ws = (await workspaceWith(stack, owner, [[viewer, 'VIEWER']])).id;
  });
  afterAll(async () => {
    await pool?.end();
    await stack?.stop();
  });

  interface Answer {
    status: number;
    body: any;
  }
  const asService = () => mintServiceToken(stack.config.internalTokenSecret, 'export');

  /** Straight at the attachment service, as the export service's import job. */
  async function store(
    fields: Record<string, string>,
    file: FilePart | null,
    identity?: string | null,
  ): Promise<Answer> {
    const { body, contentType } = multipart({ workspaceId: ws, userId: owner.id, ...fields }, file);
    const token = identity === undefined ? await asService() : identity;
    const res = await fetch(`${stack.config.urls.attachment}/internal/attachments`, {
      method: 'POST',
      headers: { 'content-type': contentType, ...(token ? { 'x-wiki-identity': token } : {}) },
      body,
    });
    return { status: res.status, body: await res.json() };
  }
  async function rollback(importId: string): Promise<Answer> {
    const res = await fetch(
      `${stack.config.urls.attachment}/internal/attachments/import/${importId}?userId=${owner.id}`,
      { method: 'DELETE', headers: { 'x-wiki-identity': await asService() } },
    );
    return { status: res.status, body: await res.json() };
  }
  /** The import's documents, made by the document service's import route after their files. */
  async function importDocuments(importId: string, documents: unknown[]) {
    const res = await fetch(`${stack.config.urls.document}/internal/documents/import`, {
      method: 'POST',
      headers: { 'x-wiki-identity': await asService(), 'content-type': 'application/json' },
      body: JSON.stringify({ importId, workspaceId: ws, userId: owner.id, documents }),
    });
    expect(res.status).toBe(200);
  }

  it('stores an image for a document that does not exist yet; once the import makes it, members read it inline', async () => {
    const importId = randomUUID();
    const documentId = randomUUID();
    const image = png(12, 8);
    const res = await store({ documentId, importId, fileName: '図 1.png' }, { name: 'ignored.png', body: image });
    expect(res.status).toBe(201);
    const a = res.body.data;
    expect(a).toMatchObject({ documentId, fileName: '図 1.png', mimeType: 'image/png', width: 12, height: 8 });
    expect(keyOf(a).startsWith(`workspaces/${ws}/documents/${documentId}/`)).toBe(true);

    await importDocuments(importId, [
      { id: documentId, title: 'With a picture', content: [{ type: 'image', props: { url: a.url }, children: [] }] },
    ]);
    const file = await getAs(stack, owner, a.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toMatch(/^inline/);
    expect(file.headers.get('content-type')).toBe('image/png');
    const listed = await getAs(stack, owner, `/api/v1/attachments/document/${documentId}`);
    expect(listed.body.data.map((x: { id: string }) => x.id)).toEqual([a.id]);
  });

  it('never serves active content inline: HTML claimed as a PNG is stored as HTML and served as a download', async () => {
    const documentId = randomUUID();
    const page = Buffer.from('<!DOCTYPE html><html><body><script>alert(1)</script></body></html>');
    const res = await store({ documentId }, { name: 'photo.png', contentType: 'image/png', body: page });
    expect(res.status).toBe(201);
    expect(res.body.data.mimeType).toBe('text/html');
    const svg = await store(
      { documentId },
      {
        name: 'logo.svg',
        body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      },
    );
    expect(svg.body.data.mimeType).toBe('image/svg+xml');
    await importDocuments(randomUUID(), [{ id: documentId, title: 'Active content' }]);
    for (const a of [res.body.data, svg.body.data]) {
      const file = await getAs(stack, owner, a.url);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-disposition')).toMatch(/^attachment/);
      expect(file.headers.get('content-security-policy')).toBe('sandbox');
      expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('applies the upload’s rules: EDITOR of the workspace, the document’s workspace, size, service identity', async () => {
    const file = { name: 'a.png', body: png(4, 4) };
    const documentId = randomUUID();
    expect((await store({ documentId, userId: viewer.id }, file)).status).toBe(403);
    const stranger = await signInNew(stack, 'Sam Stranger');
    expect((await store({ documentId, userId: stranger.id }, file)).status).toBe(404);
    // An existing document must be of the workspace, and not archived.
    const other = await createWorkspace(stack, owner);
    const foreign = await createDocument(stack, owner, { workspaceId: other.id, title: 'Elsewhere' });
    expect((await store({ documentId: foreign.id }, file)).status).toBe(404);
    const archived = await createDocument(stack, owner, { workspaceId: ws, title: 'Archived' });
    await stack.request('PUT', `/api/v1/documents/${archived.id}`, { token: owner.token, body: { isArchived: true } });
    const refused = await store({ documentId: archived.id }, file);
    expect(refused.status).toBe(409);
    expect(refused.body.error.reason).toBe('DOCUMENT_ARCHIVED');

    const tooBig = await store({ documentId }, { name: 'big.bin', body: Buffer.alloc(MAX + 1, 7) });
    expect(tooBig.status).toBe(413);
    const missing = await store({ documentId, userId: 'nobody' }, file);
    expect(missing.status).toBe(400);
    expect(missing.body.error.details[0].field).toBe('userId');
    expect((await store({ documentId }, null)).status).toBe(400);

    const user = await mintIdentityToken(stack.config.internalTokenSecret, { kind: 'user', userId: owner.id }, 60);
    expect((await store({ documentId }, file, user)).status).toBe(403);
    expect((await store({ documentId }, file, null)).status).toBe(401);
    const viaGateway = await fetch(`${stack.gatewayUrl}/internal/attachments`, { method: 'POST' });
    expect(viaGateway.status).toBe(404);
  });

  it('removes the files of an import on its rollback, with attachment.deleted, and only those', async () => {
    const importId = randomUUID();
    const file = (name: string) => ({ name, body: png(6, 6) });
    // As the import job stores them (@wiki/service-client).
    const client = createServiceClient({ service: 'export', config: stack.config, logger: { error: () => undefined } });
    const one = await storeImportFile(client, {
      importId,
      workspaceId: ws,
      documentId: randomUUID(),
      userId: owner.id,
      fileName: 'one.png',
      bytes: png(6, 6),
    });
    expect(one).toMatchObject({ fileName: 'one.png', mimeType: 'image/png', width: 6 });
    const two = (await store({ documentId: randomUUID(), importId }, file('two.png'))).body.data;
    const otherImport = (await store({ documentId: randomUUID(), importId: randomUUID() }, file('three.png'))).body
      .data;

    const res = await rollback(importId);
    expect(res.status).toBe(200);
    expect([...res.body.data.attachmentIds].sort()).toEqual([one.id, two.id].sort());
    const deleted = (await readOutbox(pool, 'attachment.deleted')).map((e) => e.data.id);
    expect(deleted).toEqual(expect.arrayContaining([one.id, two.id]));
    expect(deleted).not.toContain(otherImport.id);
    const rows = await pool.anyFirst(sql.type(z.object({ id: z.string() }))`
      SELECT id FROM attachments WHERE id IN (${one.id}, ${two.id}, ${otherImport.id})`);
    expect(rows).toEqual([otherImport.id]);
    const objects = await objectsOf(stack);
    expect(objects).toContain(keyOf(otherImport));
    expect(objects).not.toContain(keyOf(one));
    expect(objects).not.toContain(keyOf(two));

    expect(await rollbackImportFiles(client, importId, owner.id)).toEqual({ attachmentIds: [] });
  });

  it('sweeps files of imports that ended without their rollback: a document never made loses its file', async () => {
    const storage = new LocalStorage(loadStorageSettings(stack.config).localDir);
    const peers = createServiceClient({
      service: 'attachment',
      config: stack.config,
      logger: { error: () => undefined },
    });
    const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const made = randomUUID();
    const neverMade = randomUUID();
    const importId = randomUUID();
    const orphan = (await store({ documentId: neverMade, importId }, { name: 'lost.png', body: png(5, 5) })).body.data;
    const kept = (await store({ documentId: made, importId }, { name: 'kept.png', body: png(5, 5) })).body.data;
    await importDocuments(importId, [{ id: made, title: 'Made' }]);

    // Within a day nothing goes: the import may still be running.
    const early = await sweepImportFiles({ pool, storage, peers, logger });
    expect(early === null || early.removed === 0).toBe(true);
    // A day later (the service's own sweep may hold the lock for a moment).
    const later = new Date(Date.now() + IMPORT_FILE_GRACE_MS + 60_000);
    await eventually(async () =>
      expect(await sweepImportFiles({ pool, storage, peers, logger }, { now: later })).not.toBeNull(),
    );
    const rows = await pool.any(sql.type(z.object({ id: z.string(), importId: z.string().nullable() }))`
      SELECT id, import_id AS "importId" FROM attachments WHERE id IN (${orphan.id}, ${kept.id})`);
    expect(rows).toEqual([{ id: kept.id, importId: null }]);
    const objects = await objectsOf(stack);
    expect(objects).not.toContain(keyOf(orphan));
    expect(objects).toContain(keyOf(kept));
    expect((await readOutbox(pool, 'attachment.deleted')).map((e) => e.data.id)).toContain(orphan.id);
    // Settled: the import's rollback no longer reaches the file of a document it made.
    expect((await rollback(importId)).body.data).toEqual({ attachmentIds: [] });
  });
});
