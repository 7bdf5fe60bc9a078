import { mintServiceToken } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { createDatabasePool, sql, z } from '@wiki/db';
import { createStorage } from '@wiki/storage';
import {
  createDocument,
  createWorkspace,
  expectStatus,
  png,
  type SignedInUser,
  type Stack,
  type StartPart,
  signInNew,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform } from '../../../test/platform.js';
import { plannedKey } from '../src/import/index.js';
import { startService as startExport } from '../src/service.js';
import { importFile, uploadsLeft, zipOf } from './import-helpers.js';
import { fetchBytes, waitForJob } from './jobs-helpers.js';

let stack: Stack;
let owner: SignedInUser;
/** What the test does between two creating calls of an import (set by the test that needs it). */
let betweenBatches: ((batch: number, importId: string) => Promise<void>) | undefined;

beforeAll(async () => {
  stack = await startPlatform(['workspace', 'document', 'attachment', 'export'], {
    parts: {
      export: ((config: Config) =>
        startExport(config, {
          settings: {
            // Two documents per call: a small zip takes three calls.
            importBatchDocuments: 2,
            beforeImportBatch: async (batch, importId) => betweenBatches?.(batch, importId),
          },
        })) as StartPart,
    },
  });
  owner = await signInNew(stack, 'Owner');
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

/** Guide with four pages under it, each showing an image of its own. */
const FILES = ['Guide.md', 'Guide/One.md', 'Guide/Two.md', 'Guide/Three.md', 'Guide/Four.md'];
const upload = () =>
  zipOf({
    'Guide.md': '# Guide\n\n![cover](img/cover.png)\n',
    'Guide/One.md': '# One\n\n![one](../img/one.png)\n',
    'Guide/Two.md': '# Two\n\n![two](../img/two.png)\n',
    'Guide/Three.md': '# Three\n\n![three](../img/three.png)\n',
    'Guide/Four.md': '# Four\n\n![four](../img/four.png)\n',
    'img/cover.png': png(9, 9),
    'img/one.png': png(5, 5),
    'img/two.png': png(6, 6),
    'img/three.png': png(7, 7),
    'img/four.png': png(8, 8),
  });

/** GET through the document service's internal tree route, as the export service calls it. */
async function internalTree(workspaceId: string): Promise<string[]> {
  const token = await mintServiceToken(stack.config.internalTokenSecret, 'export', 3600);
  const res = await fetch(`${stack.serviceUrls.document}/internal/documents/tree?workspaceId=${workspaceId}`, {
    headers: { 'x-wiki-identity': token },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { documents: Array<{ id: string }> } }).data.documents.map((d) => d.id);
}

/** The attachment records of an import, and those of the given documents, in the attachment service's database. */
async function attachmentRows(importId: string, documentIds: string[]): Promise<number> {
  const pool = await createDatabasePool(stack.config.databaseUrls.attachment, { maximumPoolSize: 1 });
  try {
    return await pool.oneFirst(
      sql.type(z.object({ count: z.number() }))`
        SELECT count(*)::int AS count FROM attachments
        WHERE import_id = ${importId} OR document_id = ANY(${sql.array(documentIds, 'uuid')})`,
    );
  } finally {
    await pool.end();
  }
}

async function objectsUnder(prefix: string): Promise<string[]> {
  const storage = await createStorage(stack.config);
  const keys: string[] = [];
  for await (const object of storage.list(prefix)) keys.push(object.key);
  return keys;
}

describe('an import refused midway, against the real services', () => {
  it('leaves neither documents nor attachments once its second call is refused', { timeout: 90_000 }, async () => {
    const workspaceId = (await createWorkspace(stack, owner)).id;
    const parent = await createDocument(stack, owner, { workspaceId, title: 'Import here' });
    const seen: { documents: number[]; attachments: number; imageStatus: number } = {
      documents: [],
      attachments: 0,
      imageStatus: 0,
    };
    betweenBatches = async (batch, importId) => {
      if (batch !== 1) return;
      // The first call made its documents, and every image is stored: the import is half done.
      const ids = FILES.map((path) => plannedKey(importId, 'document', path));
      for (const id of ids) {
        seen.documents.push((await stack.request('GET', `/api/v1/documents/${id}`, { token: owner.token })).status);
      }
      seen.attachments = await attachmentRows(importId, ids);
      const guide = await stack.request('GET', `/api/v1/documents/${ids[0]}`, { token: owner.token });
      const cover = JSON.parse(guide.body.data.content).find((b: { type: string }) => b.type === 'image');
      seen.imageStatus = (await fetchBytes(stack, owner.token, cover.props.url)).status;
      // Then the parent is archived: the document service refuses the next call (DOCUMENT_ARCHIVED).
      expectStatus(
        await stack.request('PUT', `/api/v1/documents/${parent.id}`, {
          token: owner.token,
          body: { isArchived: true },
        }),
        200,
        'archive the parent',
      );
    };
    try {
      const res = await importFile(stack, owner, 'guide.zip', await upload(), { workspaceId, parentId: parent.id });
      expect(res.status).toBe(202);
      const jobId: string = res.body.data.jobId;
      const job = await waitForJob(stack, owner, jobId);
      expect(job.status).toBe('failed');
      expect(job.error).toMatch(/^The import failed and was undone: /);

      // Midway, the first call's two documents existed (plan order: Guide, then Four), and the five images.
      expect(seen).toEqual({ documents: [200, 404, 404, 404, 200], attachments: 5, imageStatus: 200 });

      // Afterwards nothing of the import is left: not through the API…
      const ids = FILES.map((path) => plannedKey(jobId, 'document', path));
      for (const id of ids) {
        expect((await stack.request('GET', `/api/v1/documents/${id}`, { token: owner.token })).status).toBe(404);
      }
      expectStatus(
        await stack.request('PUT', `/api/v1/documents/${parent.id}`, {
          token: owner.token,
          body: { isArchived: false },
        }),
        200,
        'restore the parent',
      );
      const children = await stack.request('GET', `/api/v1/documents/${parent.id}/children`, { token: owner.token });
      expect(children.body.data).toEqual([]);
      // …nor in the services' own listings: the document tree, the attachment records, the stored files.
      expect(await internalTree(workspaceId)).toEqual([parent.id]);
      expect(await attachmentRows(jobId, ids)).toBe(0);
      for (const id of ids) expect(await objectsUnder(`workspaces/${workspaceId}/documents/${id}/`)).toEqual([]);
      await expect.poll(() => uploadsLeft(stack.config)).toEqual([]);
    } finally {
      betweenBatches = undefined;
    }
  });
});
