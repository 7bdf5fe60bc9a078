import { createDatabasePool } from '@wiki/db';
import { createStorage } from '@wiki/storage';
import {
  createDocument,
  createWorkspace,
  paragraph,
  recordEvents,
  type SignedInUser,
  type Stack,
  signInNew,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepExpiredJobFiles } from '../src/files/expired-job-files.js';
import { DEFAULT_EXPORT_SETTINGS } from '../src/settings.js';
import { docxPart, pdfText, startExportStack } from './helpers.js';
import {
  attachmentUrl,
  documentHref,
  fetchBytes,
  fileBlock,
  image,
  linkTo,
  openZip,
  pngImages,
  waitForJob,
} from './jobs-helpers.js';

/** The targets of a PDF's link annotations, as written in the file (a literal string's escapes kept). */
const pdfLinks = (pdf: Buffer) =>
  [...pdf.toString('latin1').matchAll(/\/URI \(((?:\\.|[^\\)])*)\)/g)].map((m) => m[1] as string);

/** The objects of a PDF's cross-reference table whose offset does not point at `<n> 0 obj`. */
function misplacedObjects(pdf: Buffer): number[] {
  const text = pdf.toString('latin1');
  const start = Number(/startxref\s+(\d+)/.exec(text.slice(-64))?.[1]);
  const table = /^xref\s+(\d+) (\d+)\s+/.exec(text.slice(start));
  if (!table) return [-1];
  const first = Number(table[1]);
  const entries = text
    .slice(start + table[0].length)
    .split(/\r?\n/)
    .slice(0, Number(table[2]));
  return entries.flatMap((line, i) => {
    const [offset, , kind] = line.trim().split(' ');
    if (kind !== 'n') return [];
    return text.startsWith(`${first + i} 0 obj`, Number(offset)) ? [] : [first + i];
  });
}

let stack: Stack;
let owner: SignedInUser;
let stranger: SignedInUser;
let workspaceId: string;
const ids: Record<string, string> = {};

/**
 * Root ── Child A ── CON (a reserved name; links back to Root)
 *      ├─ Child A (a second one: "Child A (2)"; links to the first)
 *      └─ a/b (a separator in its title)
 * Root shows an attachment image. Another workspace holds one document nobody here may export.
 */
beforeAll(async () => {
  stack = await startExportStack({ images: pngImages });
  owner = await signInNew(stack, 'Owner');
  stranger = await signInNew(stack, 'Stranger');
  workspaceId = (await createWorkspace(stack, owner)).id;
  const key = `workspaces/${workspaceId}/documents/x/chart.png`;
  const make = async (name: string, title: string, parentId: string | null, content: unknown[]) => {
    ids[name] = (await createDocument(stack, owner, { workspaceId, parentId, title, content })).id;
  };
  const report = attachmentUrl(`workspaces/${workspaceId}/documents/x/report.txt`);
  await make('root', 'Root', null, [
    paragraph('root text'),
    image(attachmentUrl(key), 'chart.png'),
    fileBlock(report, 'report.txt'),
  ]);
  await make('a', 'Child A', ids.root as string, [paragraph('first child')]);
  await make('con', 'CON', ids.a as string, [linkTo(documentHref(workspaceId, ids.root as string), 'up to root')]);
  await make('a2', 'Child A', ids.root as string, [linkTo(documentHref(workspaceId, ids.a as string), 'to my twin')]);
  await make('slash', 'a/b', ids.root as string, [paragraph('slashed')]);
});

afterAll(async () => {
  await stack?.stop();
});

async function exportDocument(user: SignedInUser, id: string, body: unknown) {
  return stack.request('POST', `/api/v1/documents/${id}/export`, { token: user.token, body });
}

async function finishedZip(jobId: string) {
  const job = await waitForJob(stack, owner, jobId);
  expect(job).toMatchObject({ id: jobId, kind: 'export', status: 'done', error: null });
  const zip = await fetchBytes(stack, owner.token, job.result.downloadUrl);
  expect(zip.status).toBe(200);
  expect(zip.headers.get('content-type')).toBe('application/zip');
  return { job, zip: await openZip(zip.body) };
}

describe('tree export as a job', () => {
  it('writes a subtree as Markdown: folders mirror the tree, safe names, relative links, the image as a file', async () => {
    const events = await recordEvents(stack.config);
    try {
      const res = await exportDocument(owner, ids.root as string, { format: 'markdown' });
      expect(res.status).toBe(202);
      const { jobId } = res.body.data;
      const { job, zip } = await finishedZip(jobId);
      try {
        expect(job.progress).toEqual({ done: 5, total: 5 });
        expect(job.result).toMatchObject({ documentCount: 5, fileName: 'Root.zip' });
        expect([...zip.names].sort()).toEqual(
          [
            'Root.md',
            'Root/Child A.md',
            'Root/Child A/CON_.md',
            'Root/Child A (2).md',
            'Root/a_b.md',
            '_attachments/chart.png',
            '_attachments/report.txt',
            '_tree.json',
          ].sort(),
        );
        const root = (await zip.read('Root.md')).toString();
        expect(root).toContain('![chart.png](<_attachments/chart.png>)');
        expect(root).toContain('[report.txt](<_attachments/report.txt>)');
        expect((await zip.read('_attachments/report.txt')).toString()).toContain('report.txt');
        expect((await zip.read('Root/Child A/CON_.md')).toString()).toContain('[up to root](<../../Root.md>)');
        expect((await zip.read('Root/Child A (2).md')).toString()).toContain('[to my twin](<Child%20A.md>)');
        // The reading order, which the names alone do not tell.
        expect(JSON.parse((await zip.read('_tree.json')).toString())).toEqual({
          kind: 'wiki-tree-export',
          version: 1,
          documents: ['Root.md', 'Root/Child A.md', 'Root/Child A/CON_.md', 'Root/Child A (2).md', 'Root/a_b.md'],
        });
        expect((await zip.read('_attachments/chart.png')).subarray(1, 4).toString()).toBe('PNG');
      } finally {
        await zip.close();
      }
      // The finish is told once, with ids only.
      await expect.poll(() => events.ofType('job.finished').length, { timeout: 10_000 }).toBe(1);
      expect(events.ofType('job.finished')[0]?.data).toEqual({
        id: jobId,
        kind: 'export',
        status: 'done',
        ownerId: owner.id,
        workspaceId,
        documentId: ids.root,
      });
      expect(events.contractViolations()).toEqual([]);
    } finally {
      await events.close();
    }
  });

  it('writes HTML pages that show their images from the zip and link to each other', async () => {
    const res = await exportDocument(owner, ids.root as string, { format: 'html', includeChildren: true });
    expect(res.status).toBe(202);
    const { zip } = await finishedZip(res.body.data.jobId);
    try {
      expect(zip.names).toContain('Root/Child A (2).html');
      const root = (await zip.read('Root.html')).toString();
      expect(root).toContain('<img src="_attachments/chart.png"');
      expect(root).not.toContain('data:image');
      expect(root).toContain('<a href="_attachments/report.txt">report.txt</a>');
      expect((await zip.read('Root/Child A/CON_.html')).toString()).toContain('<a href="../../Root.html">');
    } finally {
      await zip.close();
    }
  });

  it('writes Word files whose links between documents are relative', async () => {
    const res = await exportDocument(owner, ids.a as string, { format: 'docx' });
    const { zip } = await finishedZip(res.body.data.jobId);
    try {
      expect([...zip.names].sort()).toEqual(['Child A.docx', 'Child A/CON_.docx', '_tree.json']);
      // CON links to Root, which is not in this export: its link stays the web app's.
      const rels = await docxPart(await zip.read('Child A/CON_.docx'), 'word/_rels/document.xml.rels');
      expect(rels).toContain(`Target="/w/${workspaceId}/d/${ids.root}"`);
    } finally {
      await zip.close();
    }
    const whole = await exportDocument(owner, ids.root as string, { format: 'docx' });
    const { zip: all } = await finishedZip(whole.body.data.jobId);
    try {
      const rels = await docxPart(await all.read('Root/Child A/CON_.docx'), 'word/_rels/document.xml.rels');
      expect(rels).toContain('Target="../../Root.docx"');
    } finally {
      await all.close();
    }
  });

  it('exports one document alone when includeChildren is false', async () => {
    const res = await exportDocument(owner, ids.a as string, { format: 'markdown', includeChildren: false });
    const { job, zip } = await finishedZip(res.body.data.jobId);
    try {
      expect(zip.names).toEqual(['Child A.md', '_tree.json']);
      expect(job.progress).toEqual({ done: 1, total: 1 });
    } finally {
      await zip.close();
    }
  });

  it('prints a small workspace as PDFs whose links to each other are relative file links', async () => {
    const ws = (await createWorkspace(stack, owner)).id;
    const parent = await createDocument(stack, owner, {
      workspaceId: ws,
      title: 'Printed (1)',
      content: [paragraph('parent page')],
    });
    const leaf = await createDocument(stack, owner, {
      workspaceId: ws,
      parentId: parent.id,
      title: '日本語 Leaf',
      content: [paragraph('leaf page'), linkTo(documentHref(ws, parent.id), 'up')],
    });
    const put = await stack.request('PUT', `/api/v1/documents/${parent.id}`, {
      token: owner.token,
      body: { content: [paragraph('parent page'), linkTo(documentHref(ws, leaf.id), 'down')] },
    });
    expect(put.status).toBe(200);
    const res = await stack.request('POST', `/api/v1/workspaces/${ws}/export`, {
      token: owner.token,
      body: { format: 'pdf' },
    });
    expect(res.status).toBe(202);
    const { zip } = await finishedZip(res.body.data.jobId);
    try {
      expect([...zip.names].sort()).toEqual(['Printed (1).pdf', 'Printed (1)/日本語 Leaf.pdf', '_tree.json']);
      const leafPdf = await zip.read('Printed (1)/日本語 Leaf.pdf');
      const parentPdf = await zip.read('Printed (1).pdf');
      expect(await pdfText(leafPdf)).toContain('leaf page');
      expect(pdfLinks(leafPdf)).toEqual(['../Printed%20\\(1\\).pdf']);
      expect(pdfLinks(parentPdf)).toEqual([
        `Printed%20\\(1\\)/${encodeURIComponent('日本語 Leaf.pdf').replace(/[()]/g, '\\$&')}`,
      ]);
      // The links were written over in place: every object is still where the file says it is.
      expect(misplacedObjects(leafPdf)).toEqual([]);
      expect(misplacedObjects(parentPdf)).toEqual([]);
    } finally {
      await zip.close();
    }
  });

  it('keeps jobs to their owners and exports to members', async () => {
    const res = await exportDocument(owner, ids.slash as string, { format: 'markdown' });
    const { jobId } = res.body.data;
    await waitForJob(stack, owner, jobId);
    expect((await stack.request('GET', `/api/v1/jobs/${jobId}`, { token: stranger.token })).status).toBe(404);
    expect((await fetchBytes(stack, stranger.token, `/api/v1/jobs/${jobId}/download`)).status).toBe(404);
    expect((await stack.request('GET', `/api/v1/jobs/${jobId}`)).status).toBe(401);
    expect((await exportDocument(stranger, ids.root as string, { format: 'markdown' })).status).toBe(404);
    const ws = await stack.request('POST', `/api/v1/workspaces/${workspaceId}/export`, {
      token: stranger.token,
      body: { format: 'markdown' },
    });
    expect(ws.status).toBe(404);
  });

  it('refuses a bad format, and a download before the job is done', async () => {
    const bad = await exportDocument(owner, ids.root as string, { format: 'txt' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    const missing = await exportDocument(owner, ids.root as string, {});
    expect(missing.status).toBe(400);
    const wsBad = await stack.request('POST', `/api/v1/workspaces/${workspaceId}/export`, {
      token: owner.token,
      body: { format: 'rtf' },
    });
    expect(wsBad.status).toBe(400);
    expect((await stack.request('GET', '/api/v1/jobs/not-a-uuid', { token: owner.token })).status).toBe(400);
  });

  it('lets a download expire: the sweep removes the zip, and the link answers 410', async () => {
    const res = await exportDocument(owner, ids.slash as string, { format: 'markdown' });
    const job = await waitForJob(stack, owner, res.body.data.jobId);
    expect((await fetchBytes(stack, owner.token, job.result.downloadUrl)).status).toBe(200);
    const pool = await createDatabasePool(stack.config.databaseUrls.export);
    try {
      const later = new Date(Date.now() + 2 * DEFAULT_EXPORT_SETTINGS.downloadTtlMs);
      expect(await sweepExpiredJobFiles(pool, await createStorage(stack.config), later)).toBeGreaterThan(0);
    } finally {
      await pool.end();
    }
    const gone = await stack.request('GET', job.result.downloadUrl, { token: owner.token });
    expect(gone.status).toBe(410);
    expect(gone.body.error.reason).toBe('EXPORT_EXPIRED');
  });
});
