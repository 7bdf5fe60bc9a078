import type { CommonQueryMethods } from '@wiki/db';
import { treeText } from '../db/documents.js';
import { treeJson } from '../domain/tree.js';
import { type Answer, rememberedAnswers } from './remembered-answers.js';

/** Bytes of tree answers kept per replica at most (a tree of 10,000 documents is about 1.5 MB, 0.2 MB gzipped). */
const MAX_BYTES = 24 * 1024 * 1024;

const ENVELOPE = ['{"success":true,"data":', '}'] as const;

/** A tree answer: the JSON, gzipped when the client takes gzip and the answer is large. */
export type TreeAnswer = Answer;

/**
 * The tree answers of workspaces, kept with the workspace version they were built under and
 * reused while it has not moved (queries/remembered-answers.ts; `versionOf` is the app's shared
 * version read, queries/version-reads.ts). Every replica checks the same counter, so none serves a
 * tree older than the last write committed before the request came. A large answer is also kept
 * gzipped for clients that take it (browsers do): a 10,000-document tree is then a seventh of the
 * bytes for the gateway to pass on and the client to read.
 */
export function rememberedTrees(
  db: CommonQueryMethods,
  versionOf: (workspaceId: string) => Promise<number>,
  maxBytes = MAX_BYTES,
) {
  const answer = rememberedAnswers<null>(maxBytes);
  return async function treeAnswer(workspaceId: string, acceptsGzip = false): Promise<TreeAnswer> {
    const version = await versionOf(workspaceId);
    const build = async () => {
      const { rows } = await treeText(db, workspaceId);
      return { body: treeJson(rows, workspaceId, ...ENVELOPE), meta: null };
    };
    const { meta: _, ...sent } = await answer(workspaceId, version, build, acceptsGzip);
    return sent;
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
