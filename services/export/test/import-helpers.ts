import { buffer } from 'node:stream/consumers';
import type { Config } from '@wiki/config';
import { createStorage } from '@wiki/storage';
import type { SignedInUser, Stack } from '@wiki/testing';
import yazl from 'yazl';
import { IMPORT_UPLOAD_PREFIX } from '../src/import-job/params.js';

export async function zipOf(entries: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(entries)) zip.addBuffer(Buffer.from(data), name);
  zip.end();
  return buffer(zip.outputStream);
}

/** POST /documents/import through the gateway as multipart/form-data. */
export async function importFile(
  stack: Stack,
  user: SignedInUser,
  fileName: string,
  bytes: Buffer,
  fields: Record<string, string>,
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([bytes]), fileName);
  const res = await fetch(`${stack.gatewayUrl}/api/v1/documents/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.token}` },
    body: form,
  });
  return { status: res.status, body: await res.json() };
}

export interface TreeNode {
  id: string;
  title: string;
  children: TreeNode[];
}

/** GET /documents/tree of a workspace. */
export async function treeOf(stack: Stack, user: SignedInUser, workspaceId: string): Promise<TreeNode[]> {
  const res = await stack.request('GET', `/api/v1/documents/tree?workspaceId=${workspaceId}`, { token: user.token });
  if (res.status !== 200) throw new Error(`GET /documents/tree answered ${res.status}`);
  return res.body.data;
}

/** The uploads still waiting in the store. */
export async function uploadsLeft(config: Config): Promise<string[]> {
  const storage = await createStorage(config);
  const keys: string[] = [];
  for await (const object of storage.list(IMPORT_UPLOAD_PREFIX)) keys.push(object.key);
  return keys;
}

/** Runs `work` over `items`, at most `limit` at once; the results in the items' order. */
export async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const at = next++;
      results[at] = await work(items[at] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
