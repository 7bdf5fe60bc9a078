import type { CommonQueryMethods } from '@wiki/db';
import { treeText, treeVersion } from '../db/documents.js';
import { treeJson } from '../domain/tree.js';

/** Bytes of tree answers kept per replica at most (a tree of 10,000 documents is about 1.5 MB). */
const MAX_BYTES = 24 * 1024 * 1024;

const ENVELOPE = ['{"success":true,"data":', '}'] as const;

/**
 * The tree answers of workspaces, remembered with the tree version they were built under
 * (migrations/0007_tree_versions.sql: bumped by every write to the workspace's documents, in the
 * writing statement). A read checks the version (one small query) and reuses the answer while it
 * has not moved; otherwise the tree and its version are read in one statement and remembered.
 * Every replica checks the same counter, so none serves a tree older than the last committed write.
 */
export function rememberedTrees(db: CommonQueryMethods, maxBytes = MAX_BYTES) {
  const answers = new Map<string, { version: number; body: Buffer }>();
  let bytes = 0;

  function remember(workspaceId: string, version: number, body: Buffer) {
    forget(workspaceId);
    if (body.length > maxBytes) return;
    while (bytes + body.length > maxBytes) forget(answers.keys().next().value as string);
    answers.set(workspaceId, { version, body });
    bytes += body.length;
  }
  function forget(workspaceId: string) {
    const known = answers.get(workspaceId);
    if (!known) return;
    answers.delete(workspaceId);
    bytes -= known.body.length;
  }

  return async function treeAnswer(workspaceId: string): Promise<Buffer> {
    const known = answers.get(workspaceId);
    if (known && known.version === (await treeVersion(db, workspaceId))) {
      // Most recently used last, so the oldest used goes first.
      answers.delete(workspaceId);
      answers.set(workspaceId, known);
      return known.body;
    }
    const { version, rows } = await treeText(db, workspaceId);
    const body = treeJson(rows, workspaceId, ...ENVELOPE);
    remember(workspaceId, version, body);
    return body;
  };
}
