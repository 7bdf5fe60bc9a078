import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Config } from '@wiki/config';
import { createDatabasePool, sql, z } from '@wiki/db';
import { createStorage } from '@wiki/storage';
import {
  addMember,
  createDocument,
  createWorkspace,
  png,
  type SignedInUser,
  type Stack,
  type StartPart,
  signInNew,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform } from '../../../test/platform.js';
import { insertJob } from '../src/db/jobs.js';
import { sweepOrphanUploads, UPLOAD_GRACE_MS } from '../src/files/orphan-uploads.js';
import { uploadKeyOf } from '../src/import-job/params.js';
import { startService as startExport } from '../src/service.js';
import { FAST } from './helpers.js';
import { importFile as importAs, type TreeNode, treeOf, uploadsLeft, zipOf } from './import-helpers.js';
import { waitForJob } from './jobs-helpers.js';

let stack: Stack;
let owner: SignedInUser;
let viewer: SignedInUser;
let stranger: SignedInUser;
let workspaceId: string;

beforeAll(async () => {
  stack = await startPlatform(['workspace', 'document', 'attachment', 'export'], {
    parts: {
      export: ((config: Config) =>
        startExport(config, { settings: { ...FAST, importMaxBytes: 64 * 1024 } })) as StartPart,
    },
  });
  owner = await signInNew(stack, 'Owner');
  viewer = await signInNew(stack, 'Viewer');
  stranger = await signInNew(stack, 'Stranger');
  workspaceId = (await createWorkspace(stack, owner, { name: 'Imports' })).id;
  await addMember(stack, workspaceId, owner, viewer, 'VIEWER');
});

afterAll(async () => {
  await stack?.stop();
});

const importFile = (
  user: SignedInUser,
  fileName: string,
  bytes: Buffer,
  fields: Record<string, string> = { workspaceId },
) => importAs(stack, user, fileName, bytes, fields);

const tree = () => treeOf(stack, owner, workspaceId);

const find = (nodes: TreeNode[], title: string): TreeNode | undefined => {
  for (const node of nodes) {
    if (node.title === title) return node;
    const below = find(node.children ?? [], title);
    if (below) return below;
  }
  return undefined;
};

async function content(id: string): Promise<any[]> {
  const res = await stack.request('GET', `/api/v1/documents/${id}`, { token: owner.token });
  expect(res.status).toBe(200);
  return JSON.parse(res.body.data.content);
}

/** Every value of `key` anywhere in `value`. */
const valuesOf = (value: unknown, key: string): unknown[] => {
  if (Array.isArray(value)) return value.flatMap((v) => valuesOf(v, key));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => (k === key ? [v, ...valuesOf(v, key)] : valuesOf(v, key)));
};

describe('import as a job', () => {
  it('makes a zip into a tree under the parent: the link leads to the new document, the image is an attachment', async () => {
    const parent = await createDocument(stack, owner, { workspaceId, title: 'Imported here' });
    const zip = await zipOf({
      'Start.md': '# Start\n\nSee [the intro](guide/Intro.md).\n\n![a picture](img/pic.png)\n',
      'guide/Intro.md': '# Intro\n\nHello from the guide.\n',
      'img/pic.png': png(8, 6),
    });
    const res = await importFile(owner, 'site.zip', zip, { workspaceId, parentId: parent.id });
    expect(res.status).toBe(202);
    const job = await waitForJob(stack, owner, res.body.data.jobId);
    expect(job).toMatchObject({ kind: 'import', status: 'done', error: null });
    expect(job.result.documentIds).toHaveLength(3);

    const under = find(await tree(), 'Imported here')?.children ?? [];
    const start = find(under, 'Start');
    const intro = find(under, 'Intro');
    expect(start).toBeDefined();
    expect(intro).toBeDefined();
    expect(job.result.documentIds).toEqual(expect.arrayContaining([start?.id, intro?.id]));
    expect(find(under, 'guide')?.children.map((c) => c.id)).toEqual([intro?.id]);

    const blocks = await content(start?.id as string);
    expect(valuesOf(blocks, 'href')).toContain(`/w/${workspaceId}/d/${intro?.id}`);
    const [imageUrl] = blocks.filter((b) => b.type === 'image').map((b) => b.props.url);
    expect(imageUrl).toMatch(/^\/api\/v1\/attachments\//);
    const picture = await fetch(`${stack.gatewayUrl}${imageUrl}`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(picture.status).toBe(200);
    expect(picture.headers.get('content-type')).toBe('image/png');
    await expect.poll(() => uploadsLeft(stack.config)).toEqual([]);

    // The job is its owner's alone.
    const theirs = await stack.request('GET', `/api/v1/jobs/${job.id}`, { token: viewer.token });
    expect(theirs.status).toBe(404);
  });

  it('makes a single Markdown file one document at the root', async () => {
    const res = await importFile(owner, 'notes.md', Buffer.from('# Lone notes\n\nJust one file.\n'));
    expect(res.status).toBe(202);
    const job = await waitForJob(stack, owner, res.body.data.jobId);
    expect(job.status).toBe('done');
    const roots = await tree();
    const lone = roots.find((node) => node.title === 'Lone notes');
    expect(job.result.documentIds).toEqual([lone?.id]);
  });

  it('fails a refused zip (an entry leaving the archive) with its reason and creates nothing', async () => {
    const before = JSON.stringify(await tree());
    // yazl refuses unsafe names: write a same-length safe one and swap the bytes.
    const zip = await zipOf({ 'ok.md': '# Fine\n', 'xx/evil.md': '# Evil\n' });
    const evil = Buffer.from(zip);
    for (let at = evil.indexOf('xx/evil.md'); at !== -1; at = evil.indexOf('xx/evil.md', at + 1)) {
      evil.write('../evil.md', at);
    }
    const res = await importFile(owner, 'evil.zip', evil);
    expect(res.status).toBe(202);
    const job = await waitForJob(stack, owner, res.body.data.jobId);
    expect(job.status).toBe('failed');
    expect(job.error).toContain('../evil.md');
    expect(JSON.stringify(await tree())).toBe(before);
    await expect.poll(() => uploadsLeft(stack.config)).toEqual([]);
  });

  it('refuses a VIEWER (403), a stranger (404), a file of another type (400) and a file past the limit (413)', async () => {
    const md = Buffer.from('# x\n');
    expect((await importFile(viewer, 'a.md', md)).status).toBe(403);
    expect((await importFile(stranger, 'a.md', md)).status).toBe(404);
    const typed = await importFile(owner, 'a.pdf', md);
    expect(typed.status).toBe(400);
    expect(typed.body.error.message).toContain('.md');
    expect((await importFile(owner, 'big.md', Buffer.alloc(200 * 1024, 'a'))).status).toBe(413);
    expect((await importFile(owner, 'a.md', md, { workspaceId: 'nope' })).status).toBe(400);
    await expect.poll(() => uploadsLeft(stack.config)).toEqual([]);
  });

  it('tells any signed-in person what an import takes here (the configured size), and nobody else', async () => {
    const terms = await stack.request('GET', '/api/v1/documents/import', { token: stranger.token });
    expect(terms.status).toBe(200);
    expect(terms.body.data).toEqual({
      maxBytes: 64 * 1024,
      extensions: ['.md', '.markdown', '.html', '.htm', '.docx', '.zip'],
      maxZipEntries: 10_000,
      maxUncompressedBytes: 1024 ** 3,
    });
    const anonymous = await stack.request('GET', '/api/v1/documents/import');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
  });
});

describe('the sweep of import uploads', () => {
  it('removes uploads whose job finished or vanished, and keeps those of unfinished jobs and young ones', async () => {
    const pool = await createDatabasePool(stack.config.databaseUrls.export, { maximumPoolSize: 2 });
    const storage = await createStorage(stack.config);
    const store = (key: string) => storage.put(key, Readable.from([Buffer.from('zip')]), 3, 'application/zip');
    try {
      // A finished import whose upload was left behind (a process killed before its cleanup).
      const res = await importFile(owner, 'left.md', Buffer.from('# Left behind\n'));
      const done = await waitForJob(stack, owner, res.body.data.jobId);
      expect(done.status).toBe('done');
      const doneKey = await pool.oneFirst(
        sql.type(z.object({ key: z.string() }))`SELECT params->>'uploadKey' AS key FROM jobs WHERE id = ${done.id}`,
      );
      await expect.poll(() => uploadsLeft(stack.config)).toEqual([]);
      await store(doneKey);
      // An upload whose row is gone, and one a queued job still waits for.
      const orphanKey = uploadKeyOf(randomUUID());
      await store(orphanKey);
      const queuedKey = uploadKeyOf(randomUUID());
      await store(queuedKey);
      await insertJob(pool, {
        id: randomUUID(),
        kind: 'import',
        ownerId: owner.id,
        workspaceId,
        params: { uploadKey: queuedKey, fileName: 'q.md', parentId: null },
      });

      // Young uploads may still be waiting for their rows: none goes yet.
      expect(await sweepOrphanUploads(pool, storage)).toBe(0);
      expect((await uploadsLeft(stack.config)).sort()).toEqual([doneKey, orphanKey, queuedKey].sort());

      const later = new Date(Date.now() + 2 * UPLOAD_GRACE_MS);
      expect(await sweepOrphanUploads(pool, storage, { now: later })).toBe(2);
      expect(await uploadsLeft(stack.config)).toEqual([queuedKey]);
      await storage.delete(queuedKey);
    } finally {
      await pool.end();
    }
  });
});
