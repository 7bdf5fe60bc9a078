import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { png, type SignedInUser, type Stack } from '@wiki/testing';
import type { ImageSource } from '../src/render/images.js';

const run = promisify(execFile);

/**
 * Attachments as the attachment service would answer them: a small PNG for every key ending in
 * .png (as an image or a file), the key itself as the text of a .txt file.
 */
export const pngImages: ImageSource = {
  load: async (key) => (key.endsWith('.png') ? png(4, 4) : null),
  loadFile: async (key) => (key.endsWith('.png') ? png(4, 4) : key.endsWith('.txt') ? Buffer.from(key) : null),
};

export const fileBlock = (url: string, name: string) => ({ type: 'file', props: { url, name }, children: [] });

/** The editor's address of a document (what a link between documents holds). */
export const documentHref = (workspaceId: string, documentId: string) => `/w/${workspaceId}/d/${documentId}`;

export const attachmentUrl = (key: string) => `/api/v1/attachments/file?url=${encodeURIComponent(key)}`;

export const linkTo = (href: string, text: string) => ({
  type: 'paragraph',
  content: [{ type: 'link', href, content: [{ type: 'text', text, styles: {} }] }],
  children: [],
});

export const image = (url: string, name: string) => ({
  type: 'image',
  props: { url, name, caption: '' },
  children: [],
});

/** GET /jobs/{id} until the job is done or failed (or `timeoutMs` passes). */
export async function waitForJob(stack: Stack, user: SignedInUser, jobId: string, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await stack.request('GET', `/api/v1/jobs/${jobId}`, { token: user.token });
    if (res.status !== 200) throw new Error(`GET /jobs/${jobId} answered ${res.status}`);
    const job = res.body.data;
    if (job.status === 'done' || job.status === 'failed') return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A download through the gateway as bytes. */
export async function fetchBytes(
  stack: Stack,
  token: string,
  path: string,
): Promise<{ status: number; body: Buffer; headers: Headers }> {
  const res = await fetch(`${stack.gatewayUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** The entries of a zip (unzip -Z1) and a reader of one entry's bytes. */
export async function openZip(
  zip: Buffer,
): Promise<{ names: string[]; read(name: string): Promise<Buffer>; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'export-zip-test-'));
  const path = join(dir, 'export.zip');
  await writeFile(path, zip);
  const names = (await run('unzip', ['-Z1', path])).stdout.split('\n').filter(Boolean);
  return {
    names,
    // unzip takes wildcards in names: brackets and the like are escaped.
    read: async (name) =>
      (
        await run('unzip', ['-p', path, name.replace(/[[\]*?\\]/g, '\\$&')], {
          encoding: 'buffer',
          maxBuffer: 64 << 20,
        })
      ).stdout as unknown as Buffer,
    close: () => rm(dir, { recursive: true, force: true }),
  };
}
