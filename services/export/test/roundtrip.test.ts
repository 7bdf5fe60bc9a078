import { createHash } from 'node:crypto';
import type { Config } from '@wiki/config';
import {
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
import { startService as startExport } from '../src/service.js';
import { FAST } from './helpers.js';
import { importFile, inParallel, type TreeNode, treeOf, uploadsLeft } from './import-helpers.js';
import { documentHref, fetchBytes, image, waitForJob } from './jobs-helpers.js';
import { blocksAsText, type TextRefs } from './plain-text.js';

/**
 * The round trip of ARCHITECTURE 5.19: a workspace of 200 documents exported as Markdown through
 * the API and the zip imported into a new workspace comes back as the same tree with the same
 * text, its images as attachments of the new workspace and its links between the new documents.
 */

let stack: Stack;
let owner: SignedInUser;

beforeAll(async () => {
  stack = await startPlatform(['workspace', 'document', 'attachment', 'export'], {
    parts: { export: ((config: Config) => startExport(config, { settings: FAST })) as StartPart },
  });
  owner = await signInNew(stack, 'Round trip');
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

interface Spec {
  title: string;
  parent: number | null;
  level: number;
}

/**
 * 3 roots, 3 children each for three levels (120), and two more under each of the first 40
 * documents of the last level (80): 200 documents five levels deep. Sibling titles are out of
 * alphabetical order (the import must not sort them by name), some are CJK, and the first root's
 * first two children share a title (the zip names them `Notes.md` and `Notes (2).md`).
 */
function treeSpec(): Spec[] {
  const specs: Spec[] = [];
  const names = ['Zulu', 'Alpha', 'Mike', '日本語の文章', 'Echo', '한국어 문서', '中文', 'Bravo'];
  const add = (parent: number | null, level: number, count: number) => {
    for (let k = 0; k < count; k++) {
      const index = specs.length;
      const duplicate = parent === 0 && k < 2;
      specs.push({ title: duplicate ? 'Notes' : `${names[index % names.length]} ${index}`, parent, level });
    }
  };
  add(null, 0, 3);
  for (let level = 1; level <= 3; level++) {
    const above = specs.map((s, i) => [s, i] as const).filter(([s]) => s.level === level - 1);
    for (const [, i] of above) add(i, level, 3);
  }
  const last = specs.map((s, i) => [s, i] as const).filter(([s]) => s.level === 3);
  for (const [, i] of last.slice(0, 40)) add(i, 4, 2);
  return specs;
}

const text = (t: string, styles: Record<string, boolean> = {}) => ({ type: 'text', text: t, styles });
const link = (href: string, t: string) => ({ type: 'link', href, content: [text(t)] });
const block = (type: string, content: unknown, props: Record<string, unknown> = {}, children: unknown[] = []) => ({
  type,
  props,
  content,
  children,
});

/** A document's content: every kind of block Markdown carries, CJK text, links, maybe an image. */
function contentOf(i: number, links: { parent?: string; other?: string }, imageUrl?: string): unknown[] {
  const linkRuns = [
    text('See '),
    links.parent ? link(links.parent, 'the parent') : link('https://example.com/a?b=1&c=2', 'the web'),
    text(' and '),
    links.other ? link(links.other, `a neighbour of ${i}`) : text('nothing else'),
    text('.'),
  ];
  return [
    block('heading', [text(`Section ${i}`)], { level: 2 }),
    block('paragraph', [
      text(`日本語の文章 ${i}。한국어 문장입니다. 中文内容。`),
      text(' Bold', { bold: true }),
      text(' and symbols * _ < > & | ~ [x] stay text.'),
    ]),
    block('paragraph', linkRuns),
    block('bulletListItem', [text('First point')], {}, [block('bulletListItem', [text(`Nested point ${i}`)])]),
    block('numberedListItem', [text('Step one')]),
    block('numberedListItem', [text('Step two')]),
    block('checkListItem', [text(`Done ${i}`)], { checked: true }),
    block('checkListItem', [text('Still open')], { checked: false }),
    block('codeBlock', [text(`const greeting${i} = "こんにちは";\nif (a | b) console.log(greeting${i});`)], {
      language: 'typescript',
    }),
    block('table', {
      type: 'tableContent',
      headerRows: 1,
      rows: [{ cells: [[text('Name')], [text('値')]] }, { cells: [[text('한국어')], [text(String(i))]] }],
    }),
    block('quote', [text(`A quote from ${i}`)]),
    ...(imageUrl ? [image(imageUrl, `figure-${i}.png`)] : []),
  ];
}

/** Makes the documents through the API; `images` uploads the images once the roots exist. */
async function createAll(
  workspaceId: string,
  specs: Spec[],
  images: (rootId: string) => Promise<string[]>,
): Promise<string[]> {
  const ids: string[] = [];
  let imageUrls: string[] = [];
  const href = (index: number | null | undefined) =>
    index === null || index === undefined ? undefined : documentHref(workspaceId, ids[index] as string);
  const create = async (i: number) => {
    const spec = specs[i] as Spec;
    // A link to the parent, and one to a document of the level above (both made already).
    const above = specs.findIndex((s) => s.level === spec.level - 1);
    const other = spec.level === 0 ? (i > 0 ? i - 1 : null) : above + (i % 3);
    const imageUrl = i % 13 === 4 && imageUrls.length > 0 ? imageUrls[i % imageUrls.length] : undefined;
    const res = await stack.request('POST', '/api/v1/documents', {
      token: owner.token,
      body: {
        workspaceId,
        parentId: spec.parent === null ? null : ids[spec.parent],
        title: spec.title,
        content: contentOf(i, { parent: href(spec.parent), other: href(other) }, imageUrl),
      },
    });
    ids[i] = expectStatus(res, 201, `create document ${i}`).body.data.id;
  };
  // Level by level; siblings one after another (their order is the order they are made in),
  // different parents' children in parallel.
  const maxLevel = Math.max(...specs.map((s) => s.level));
  for (let level = 0; level <= maxLevel; level++) {
    const groups = new Map<number | null, number[]>();
    specs.forEach((s, i) => {
      if (s.level === level) groups.set(s.parent, [...(groups.get(s.parent) ?? []), i]);
    });
    await inParallel([...groups.values()], 6, async (group) => {
      for (const i of group) await create(i);
    });
    if (level === 0) imageUrls = await images(ids[0] as string);
  }
  return ids;
}

async function uploadImage(workspaceId: string, documentId: string, bytes: Buffer, name: string): Promise<string> {
  const form = new FormData();
  form.append('workspaceId', workspaceId);
  form.append('documentId', documentId);
  form.append('file', new Blob([bytes], { type: 'image/png' }), name);
  const res = await fetch(`${stack.gatewayUrl}/api/v1/attachments/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}` },
    body: form,
  });
  const body = (await res.json()) as any;
  if (res.status !== 201) throw new Error(`upload answered ${res.status} ${JSON.stringify(body)}`);
  return body.data.url;
}

/** The tree walked parent first, siblings in order: each node with its depth. */
function flatten(nodes: TreeNode[], depth = 0, out: Array<{ node: TreeNode; depth: number }> = []) {
  for (const node of nodes) {
    out.push({ node, depth });
    flatten(node.children ?? [], depth + 1, out);
  }
  return out;
}

async function contentOfDocument(id: string): Promise<any[]> {
  const res = await stack.request('GET', `/api/v1/documents/${id}`, { token: owner.token });
  return JSON.parse(expectStatus(res, 200, `read ${id}`).body.data.content);
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

/**
 * Every document of a workspace as plain text (plain-text.ts), links to documents of the same
 * workspace written as the target's place in the tree walk and images as the hash of their bytes
 * (read through the API), so two workspaces compare although their ids differ; with the blocks.
 */
async function textsOf(workspaceId: string, walk: Array<{ node: TreeNode }>) {
  const placeOf = new Map(walk.map(({ node }, i) => [node.id, i]));
  const hashes = new Map<string, string>();
  const contents = await inParallel(walk, 6, ({ node }) => contentOfDocument(node.id));
  await inParallel([...new Set(contents.flatMap((blocks) => imageUrlsIn(blocks)))], 4, async (url) => {
    const file = await fetchBytes(stack, owner.token, url);
    hashes.set(url, file.status === 200 ? sha(file.body) : `missing ${file.status}`);
  });
  const refs: TextRefs = {
    link: (href) => {
      const match = /^\/w\/([0-9a-f-]{36})\/d\/([0-9a-f-]{36})$/.exec(href);
      if (!match || match[1] !== workspaceId) return href;
      return `document #${placeOf.get(match[2] as string) ?? 'unknown'}`;
    },
    image: (url) => `image ${hashes.get(url) ?? url}`,
  };
  return { texts: contents.map((blocks) => blocksAsText(blocks, refs)), contents };
}

function imageUrlsIn(blocks: any[]): string[] {
  return blocks.flatMap((b) => [...(b.type === 'image' ? [b.props.url] : []), ...imageUrlsIn(b.children ?? [])]);
}

describe('a workspace exported as Markdown and imported again', () => {
  it('comes back as the same tree, text, images and links', { timeout: 180_000 }, async () => {
    const source = (await createWorkspace(stack, owner, { name: 'Source' })).id;
    const specs = treeSpec();
    expect(specs).toHaveLength(200);

    // The images are uploaded to the first root, then shown by documents all over the tree.
    await createAll(source, specs, (rootId) =>
      inParallel([...Array(8).keys()], 4, (k) =>
        uploadImage(source, rootId, png(6 + k, 5 + k, [30 * k, 120, 200 - 20 * k]), `figure ${k}.png`),
      ),
    );

    const sourceWalk = flatten(await treeOf(stack, owner, source));
    // The API kept the order the documents were made in.
    expect(sourceWalk.map(({ node, depth }) => `${depth}:${node.title}`)).toEqual(
      walkOfSpec(specs).map((i) => `${(specs[i] as Spec).level}:${(specs[i] as Spec).title}`),
    );

    const exported = await stack.request('POST', `/api/v1/workspaces/${source}/export`, {
      token: owner.token,
      body: { format: 'markdown' },
    });
    expect(exported.status).toBe(202);
    const exportJob = await waitForJob(stack, owner, exported.body.data.jobId, 120_000);
    expect(exportJob).toMatchObject({ status: 'done', result: { documentCount: 200 } });
    const zip = await fetchBytes(stack, owner.token, exportJob.result.downloadUrl);
    expect(zip.status).toBe(200);

    const target = (await createWorkspace(stack, owner, { name: 'Target' })).id;
    const imported = await importFile(stack, owner, 'Source.zip', zip.body, { workspaceId: target });
    expect(imported.status).toBe(202);
    const importJob = await waitForJob(stack, owner, imported.body.data.jobId, 120_000);
    expect(importJob).toMatchObject({ status: 'done', error: null });
    expect(importJob.result.documentIds).toHaveLength(200);
    expect(importJob.result.warnings).toEqual([]);

    // The same tree: titles, parents and sibling order.
    const targetWalk = flatten(await treeOf(stack, owner, target));
    expect(targetWalk.map(({ node, depth }) => `${depth}:${node.title}`)).toEqual(
      sourceWalk.map(({ node, depth }) => `${depth}:${node.title}`),
    );

    // The same text, links leading to the same places of the new tree, images with the same bytes.
    const before = await textsOf(source, sourceWalk);
    const after = await textsOf(target, targetWalk);
    expect(after.texts).toEqual(before.texts);
    expect(before.texts.filter((t) => t.includes('image ')).length).toBeGreaterThan(10);

    // The images are attachments of the new documents (so of the new workspace).
    const withImages = targetWalk
      .map(({ node }, i) => ({ id: node.id, urls: imageUrlsIn(after.contents[i] as any[]) }))
      .filter(({ urls }) => urls.length > 0);
    await inParallel(withImages, 4, async ({ id, urls }) => {
      for (const url of urls) expect(decodeURIComponent(url)).toContain(`workspaces/${target}/documents/${id}/`);
      const listed = await stack.request('GET', `/api/v1/attachments/document/${id}`, { token: owner.token });
      expect(listed.body.data.map((a: { url: string }) => a.url)).toEqual(expect.arrayContaining(urls));
    });
    await expect.poll(() => uploadsLeft(stack.config)).toEqual([]);
  });
});

/** The spec's documents in tree order (parent first, siblings in the order they were made). */
function walkOfSpec(specs: Spec[]): number[] {
  const out: number[] = [];
  const visit = (parent: number | null) => {
    specs.forEach((s, i) => {
      if (s.parent === parent) {
        out.push(i);
        visit(i);
      }
    });
  };
  visit(null);
  return out;
}
