import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Config } from '@wiki/config';
import {
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
import { startService as startExport } from '../src/service.js';
import { docxPart, docxParts, download, FAST } from './helpers.js';

const run = promisify(execFile);

interface Uploaded {
  url: string;
  mimeType: string;
}

/** POST /attachments/upload through the gateway, as the editor does it. */
async function upload(
  stack: Stack,
  user: SignedInUser,
  ids: { workspaceId: string; documentId: string },
  name: string,
  body: Buffer,
): Promise<Uploaded> {
  const form = new FormData();
  form.set('workspaceId', ids.workspaceId);
  form.set('documentId', ids.documentId);
  form.set('file', new Blob([new Uint8Array(body)]), name);
  const res = await fetch(`${stack.gatewayUrl}/api/v1/attachments/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.token}` },
    body: form,
  });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: Uploaded }).data;
}

async function withFile<T>(bytes: Buffer, use: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'export-attachments-'));
  try {
    await writeFile(join(dir, 'f'), bytes);
    return await use(join(dir, 'f'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The bytes of one part of a .docx, as unzip reads them. */
const docxBytes = (docx: Buffer, part: string) =>
  withFile(docx, async (path) => (await run('unzip', ['-p', path, part], { encoding: 'buffer' })).stdout);

/** pdfimages -list, one line per image drawn. */
const pdfImages = (pdf: Buffer) =>
  withFile(pdf, async (path) => (await run('pdfimages', ['-list', path])).stdout.split('\n').slice(2).filter(Boolean));

const image = (url: string, caption: string) => ({ type: 'image', props: { url, caption, name: caption } });

describe('images from the attachment service, end to end through the gateway', () => {
  let stack: Stack;
  let owner: SignedInUser;
  let red: Buffer;
  let redUrl: string;
  let theirsUrl: string;
  let svgUrl: string;
  /** A listener a written-out image address points at: the export must never connect to it. */
  let bait: Server;
  let baitHits = 0;

  async function documentWith(workspaceId: string, blocks: unknown[]): Promise<string> {
    const id = (await createDocument(stack, owner, { workspaceId, title: 'Report' })).id;
    await put(id, blocks);
    return id;
  }

  async function put(id: string, content: unknown[]) {
    const res = await fetch(`${stack.gatewayUrl}/api/v1/documents/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content }),
    });
    expect(res.status).toBe(200);
  }

  let workspaceId: string;
  let mixedDoc: string;

  beforeAll(async () => {
    bait = createServer((_req, res) => {
      baitHits += 1;
      res.end();
    });
    await new Promise<void>((resolve) => bait.listen(0, '127.0.0.1', resolve));
    stack = await startPlatform(['workspace', 'document', 'attachment', 'export'], {
      // No image source given: the worker asks the attachment service, as in a running system.
      parts: { export: ((config: Config) => startExport(config, { settings: FAST })) as StartPart },
    });
    owner = await signInNew(stack, 'Owner');
    const other = await signInNew(stack, 'Other');
    workspaceId = (await createWorkspace(stack, owner, { name: 'Pictures' })).id;
    const theirWorkspace = (await createWorkspace(stack, other, { name: 'Not yours' })).id;
    const theirDoc = await createDocument(stack, other, { workspaceId: theirWorkspace, title: 'Theirs' });
    theirsUrl = (
      await upload(
        stack,
        other,
        { workspaceId: theirWorkspace, documentId: theirDoc.id },
        'blue.png',
        png(90, 60, [20, 20, 200]),
      )
    ).url;

    mixedDoc = (await createDocument(stack, owner, { workspaceId, title: 'Report' })).id;
    const ids = { workspaceId, documentId: mixedDoc };
    redUrl = (await upload(stack, owner, ids, 'red.png', png(240, 120))).url;
    // What the attachment service stored: the PNG as it was cleaned of metadata on arrival.
    const stored = await fetch(`${stack.gatewayUrl}${redUrl}`, { headers: { authorization: `Bearer ${owner.token}` } });
    red = Buffer.from(await stored.arrayBuffer());
    const svg = await upload(
      stack,
      owner,
      ids,
      'logo.svg',
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
      ),
    );
    expect(svg.mimeType).toBe('image/svg+xml');
    svgUrl = svg.url;
    await put(mixedDoc, [
      image(redUrl, 'Red box'),
      image(theirsUrl, 'Another workspace'),
      image(svgUrl, 'Vector logo'),
    ]);
  });

  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => bait?.close(resolve));
  });

  it('Word: word/media holds the stored PNG’s exact bytes, once; the other workspace’s and the SVG stay links', async () => {
    const docx = await download(stack, owner.token, mixedDoc, 'docx');
    expect(docx.status).toBe(200);
    const media = (await docxParts(docx.body)).filter((p) => p.startsWith('word/media/'));
    expect(media).toHaveLength(1);
    expect((await docxBytes(docx.body, media[0])).equals(red)).toBe(true);
    expect((await docxPart(docx.body)).match(/<w:drawing>/g)).toHaveLength(1);
    const rels = await docxPart(docx.body, 'word/_rels/document.xml.rels');
    for (const url of [theirsUrl, svgUrl]) expect(rels).toContain(`Target="${url.replaceAll('&', '&amp;')}"`);
  });

  it('PDF: pdfimages lists one image, the 240×120 PNG', async () => {
    const pdf = await download(stack, owner.token, mixedDoc, 'pdf');
    expect(pdf.status).toBe(200);
    const images = await pdfImages(pdf.body);
    expect(images).toHaveLength(1);
    expect(images[0]).toMatch(/^\s*1\s+\d+\s+image\s+240\s+120\s/);
  });

  it('an address written out with a host is read by its key from storage; the host is never contacted', async () => {
    const { port } = bait.address() as AddressInfo;
    const id = await documentWith(workspaceId, [image(`http://127.0.0.1:${port}${redUrl}`, 'Written out')]);
    const docx = await download(stack, owner.token, id, 'docx');
    expect(docx.status).toBe(200);
    const media = (await docxParts(docx.body)).filter((p) => p.startsWith('word/media/'));
    expect(media).toHaveLength(1);
    expect((await docxBytes(docx.body, media[0])).equals(red)).toBe(true);
    expect(baitHits).toBe(0);
  });

  it('another workspace’s key is not embedded even in a document that names it alone', async () => {
    const id = await documentWith(workspaceId, [image(theirsUrl, 'Borrowed')]);
    const pdf = await download(stack, owner.token, id, 'pdf');
    expect(pdf.status).toBe(200);
    expect(await pdfImages(pdf.body)).toEqual([]);
  });

  it('the attachment service unreachable: the export still succeeds, the image as a link', async () => {
    // The export worker reads peers' addresses at every call; point it at a port nobody listens on.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const real = stack.config.urls.attachment;
    stack.config.urls.attachment = `http://127.0.0.1:${port}`;
    try {
      const docx = await download(stack, owner.token, mixedDoc, 'docx');
      expect(docx.status).toBe(200);
      expect((await docxParts(docx.body)).filter((p) => p.startsWith('word/media/'))).toEqual([]);
      expect(await docxPart(docx.body, 'word/_rels/document.xml.rels')).toContain(
        `Target="${redUrl.replaceAll('&', '&amp;')}"`,
      );
    } finally {
      stack.config.urls.attachment = real;
    }
    // And back: the same document embeds it again.
    const again = await download(stack, owner.token, mixedDoc, 'docx');
    expect((await docxParts(again.body)).filter((p) => p.startsWith('word/media/'))).toHaveLength(1);
  });
});
