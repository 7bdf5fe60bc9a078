import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { CommonQueryMethods } from '@wiki/db';
import { treeText, treeVersion } from '../db/documents.js';
import { treeJson } from '../domain/tree.js';

const gzip = promisify(gzipCallback);

/** Bytes of tree answers kept per replica at most (a tree of 10,000 documents is about 1.5 MB, 0.2 MB gzipped). */
const MAX_BYTES = 24 * 1024 * 1024;
/** Answers smaller than this are sent as they are: compressing them saves less than it costs. */
const GZIP_FROM_BYTES = 32 * 1024;

const ENVELOPE = ['{"success":true,"data":', '}'] as const;

/** A tree answer: the JSON, gzipped when the client takes gzip and the answer is large. */
export interface TreeAnswer {
  body: Buffer;
  gzipped: boolean;
}

interface Remembered {
  version: number;
  body: Buffer;
  /** Made on the first request that takes gzip, then kept with the answer. */
  gzipped?: Promise<Buffer>;
  bytes: number;
}

/**
 * The tree answers of workspaces, remembered with the tree version they were built under
 * (migrations/0007_tree_versions.sql: bumped by every write to the workspace's documents, in the
 * writing statement). A read checks the version (one small query) and reuses the answer while it
 * has not moved; otherwise the tree and its version are read in one statement and remembered.
 * Every replica checks the same counter, so none serves a tree older than the last committed write.
 * A large answer is also kept gzipped for clients that take it (browsers do): a 10,000-document
 * tree is then a seventh of the bytes for the gateway to pass on and the client to read.
 */
export function rememberedTrees(db: CommonQueryMethods, maxBytes = MAX_BYTES) {
  const answers = new Map<string, Remembered>();
  let bytes = 0;

  function remember(workspaceId: string, entry: Remembered) {
    forget(workspaceId);
    if (entry.bytes > maxBytes) return;
    while (bytes + entry.bytes > maxBytes) forget(answers.keys().next().value as string);
    answers.set(workspaceId, entry);
    bytes += entry.bytes;
  }
  function forget(workspaceId: string) {
    const known = answers.get(workspaceId);
    if (!known) return;
    answers.delete(workspaceId);
    bytes -= known.bytes;
  }

  async function current(workspaceId: string): Promise<Remembered> {
    const known = answers.get(workspaceId);
    if (known && known.version === (await treeVersion(db, workspaceId))) {
      // Most recently used last, so the oldest used goes first.
      answers.delete(workspaceId);
      answers.set(workspaceId, known);
      return known;
    }
    const { version, rows } = await treeText(db, workspaceId);
    const body = treeJson(rows, workspaceId, ...ENVELOPE);
    const entry: Remembered = { version, body, bytes: body.length };
    remember(workspaceId, entry);
    return entry;
  }

  return async function treeAnswer(workspaceId: string, acceptsGzip = false): Promise<TreeAnswer> {
    const entry = await current(workspaceId);
    if (!acceptsGzip || entry.body.length < GZIP_FROM_BYTES) return { body: entry.body, gzipped: false };
    if (!entry.gzipped) {
      entry.gzipped = gzip(entry.body);
      const zipped = await entry.gzipped;
      // Counted once made (the answer may have been forgotten meanwhile: then it is not held).
      if (answers.get(workspaceId) === entry) {
        entry.bytes += zipped.length;
        bytes += zipped.length;
      }
      return { body: zipped, gzipped: true };
    }
    return { body: await entry.gzipped, gzipped: true };
  };
}

/** Whether an Accept-Encoding header takes gzip (and does not refuse it with q=0). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  return value.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}
