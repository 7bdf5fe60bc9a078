import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createDocument, png, type SignedInUser, type Stack, signInNew } from '@wiki/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ImageSource } from '../src/render/images.js';
import { docxPart, docxParts, download, startExportStack } from './helpers.js';

const run = promisify(execFile);
const STORED = '/api/v1/attachments/file?url=workspaces%2Fw%2Fdocuments%2Fd%2Fred.png';

// Attachment storage as the worker sees it: an image source that holds one PNG and a file that is
// not an image (in a running system the attachment service is the source: attachment-images.test.ts).
const requested: string[] = [];
const storage: ImageSource = {
  async load(key) {
    requested.push(key);
    if (key === 'workspaces/w/documents/d/red.png') return png(240, 120);
    if (key === 'fake.png') return Buffer.from('<svg onload="alert(1)"></svg>');
    return null;
  },
};

let stack: Stack;
let owner: SignedInUser;
let docId: string;

beforeAll(async () => {
  stack = await startExportStack({ images: storage });
  owner = await signInNew(stack, 'Owner');
  docId = (
    await createDocument(stack, owner, {
      title: 'Pictures',
      content: [
        { type: 'image', props: { url: STORED, caption: 'Red box', name: 'red.png', previewWidth: 240 } },
        { type: 'image', props: { url: '/api/v1/attachments/file?url=fake.png', caption: 'Not an image' } },
        { type: 'image', props: { url: 'https://images.example.com/outside.png', caption: 'Outside' } },
      ],
    })
  ).id;
});

afterAll(async () => {
  await stack?.stop();
});

async function pdfImages(pdf: Buffer): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'export-images-'));
  try {
    await writeFile(join(dir, 'f.pdf'), pdf);
    const { stdout } = await run('pdfimages', ['-list', join(dir, 'f.pdf')]);
    return stdout.split('\n').slice(2).filter(Boolean);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

it('embeds an image from attachment storage in the PDF and in Word; others become links', async () => {
  const pdf = await download(stack, owner.token, docId, 'pdf');
  expect(pdf.status).toBe(200);
  const images = await pdfImages(pdf.body);
  expect(images).toHaveLength(1);
  expect(images[0]).toMatch(/^\s*1\s+\d+\s+image\s+240\s+120\s/);
  expect(pdf.body.toString('latin1')).toContain('/URI (https://images.example.com/outside.png)');

  const docx = await download(stack, owner.token, docId, 'docx');
  expect(docx.status).toBe(200);
  expect((await docxParts(docx.body)).filter((p) => p.startsWith('word/media/'))).toHaveLength(1);
  const xml = await docxPart(docx.body);
  expect(xml.match(/<w:drawing>/g)).toHaveLength(1);
  expect(xml).toContain('>Red box</w:t>');
  expect(await docxPart(docx.body, 'word/_rels/document.xml.rels')).toContain(
    'Target="https://images.example.com/outside.png"',
  );

  const md = await download(stack, owner.token, docId, 'markdown');
  expect(md.body.toString('utf8')).toContain(`![Red box](<${STORED}>)`);
  // Only storage keys of attachment URLs reach the source; the outside image is never asked for.
  expect([...new Set(requested)].sort()).toEqual(['fake.png', 'workspaces/w/documents/d/red.png']);
});
