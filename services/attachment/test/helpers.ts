import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { loadStorageSettings } from '@wiki/storage';
import type { SignedInUser, Stack } from '@wiki/testing';
import { startPlatform } from '../../../test/platform.js';
import { spoolDirOf } from '../src/app.js';

/** Gateway → attachment, with the real workspace and document services it asks and hears from. */
export function startAttachmentStack(env: Record<string, string> = {}): Promise<Stack> {
  return startPlatform(['workspace', 'document', 'attachment'], { env });
}

export interface Attachment {
  id: string;
  documentId: string;
  fileName: string;
  fileSize: number;
  mimeType: string;
  url: string;
  width: number | null;
  height: number | null;
  createdAt: string;
}

export interface FilePart {
  name?: string;
  /** What the client claims; the service must not believe it. */
  contentType?: string;
  body: Buffer;
}

/** A multipart/form-data body: fields in the given order, the file where `fileAt` says (default last). */
export function multipart(
  fields: Record<string, string>,
  file: FilePart | null,
  fileAt: 'first' | 'last' = 'last',
): { body: Buffer; contentType: string } {
  const boundary = `----wiki${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  const fieldParts = Object.entries(fields).map(([name, value]) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
  );
  const filePart = file
    ? Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name ?? 'file.bin'}"\r\n` +
            `Content-Type: ${file.contentType ?? 'application/octet-stream'}\r\n\r\n`,
        ),
        file.body,
        Buffer.from('\r\n'),
      ])
    : null;
  if (filePart && fileAt === 'first') parts.push(filePart);
  parts.push(...fieldParts);
  if (filePart && fileAt === 'last') parts.push(filePart);
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The multipart head and tail around a file of `size` bytes, so the file itself can be streamed. */
export function framing(fields: Record<string, string>, name: string, size: number) {
  const boundary = `----wiki${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    Object.entries(fields)
      .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
      .join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    head,
    tail,
    contentType: `multipart/form-data; boundary=${boundary}`,
    length: head.length + size + tail.length,
  };
}

export interface RawResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  bytes: Buffer;
}

async function read<T>(res: Response): Promise<RawResponse<T>> {
  const bytes = Buffer.from(await res.arrayBuffer());
  const json = (res.headers.get('content-type') ?? '').includes('json') && bytes.length > 0;
  return { status: res.status, headers: res.headers, bytes, body: (json ? JSON.parse(bytes.toString()) : null) as T };
}

export async function uploadAs(
  stack: Stack,
  user: SignedInUser | null,
  fields: Record<string, string>,
  file: FilePart | null,
  fileAt: 'first' | 'last' = 'last',
): Promise<RawResponse<{ success: boolean; data: Attachment; error?: { code: string; details?: unknown[] } }>> {
  const { body, contentType } = multipart(fields, file, fileAt);
  const headers: Record<string, string> = { 'content-type': contentType };
  if (user) headers.authorization = `Bearer ${user.token}`;
  return read(await fetch(`${stack.gatewayUrl}/api/v1/attachments/upload`, { method: 'POST', headers, body }));
}

/** Uploads and fails on anything but a 201. */
export async function uploaded(
  stack: Stack,
  user: SignedInUser,
  workspaceId: string,
  documentId: string,
  file: FilePart,
): Promise<Attachment> {
  const res = await uploadAs(stack, user, { workspaceId, documentId }, file);
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${res.bytes.toString()}`);
  return res.body.data;
}

/** GET of a path through the gateway as `user` (or nobody), with extra headers. */
export async function getAs(
  stack: Stack,
  user: SignedInUser | null,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const all = { ...headers };
  if (user) all.authorization = `Bearer ${user.token}`;
  return read(await fetch(`${stack.gatewayUrl}${path}`, { headers: all }));
}

/** The file address for a raw key, as a client would build it. */
export const fileUrl = (key: string) => `/api/v1/attachments/file?url=${encodeURIComponent(key)}`;

/** The key inside an AttachmentResponse's url. */
export const keyOf = (a: Attachment) => new URL(a.url, 'http://x').searchParams.get('url') as string;

/** Every file under a folder, as paths relative to it ([] when it does not exist). */
export async function filesUnder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export const objectsOf = (stack: Stack) => filesUnder(loadStorageSettings(stack.config).localDir);
export const spoolOf = (stack: Stack) => filesUnder(spoolDirOf(stack.config));

/** A GIF header (logical screen `width` × `height`) followed by HTML with a script: a polyglot. */
export function gifHtmlPolyglot(width: number, height: number): Buffer {
  const head = Buffer.alloc(13);
  head.write('GIF89a', 0, 'latin1');
  head.writeUInt16LE(width, 6);
  head.writeUInt16LE(height, 8);
  return Buffer.concat([head, Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>')]);
}
