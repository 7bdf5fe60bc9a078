import type { CommonQueryMethods } from '@wiki/db';
import { success } from '@wiki/http';
import { ancestorsOf } from '../db/documents.js';
import type { PreparedStatements } from '../db/prepared-statements.js';
import { presentBreadcrumb, presentListItem } from '../presenters/documents.js';
import { type Answer, rememberedAnswers } from './remembered-answers.js';

/** Bytes of list answers kept per replica at most (a list of 200 roots is about 44 KB). */
const MAX_BYTES = 16 * 1024 * 1024;

/** The list answers of the document routes, as the JSON bodies they send (ApiResponse<List<...>>). */
export interface ListAnswers {
  /** The visible children of `parentId` (the roots when null); `empty` when there are none. */
  children(workspaceId: string, parentId: string | null, acceptsGzip?: boolean): Promise<Answer & { empty: boolean }>;
  /** The breadcrumbs of a document of the workspace, from the root down to it. */
  ancestors(workspaceId: string, id: string, acceptsGzip?: boolean): Promise<Answer>;
}

/**
 * Root lists, children and breadcrumbs, serialized once per workspace version and reused until
 * the workspace's documents change (queries/remembered-answers.ts): a read then costs a version
 * check, shared with the requests asking at the same time (`versionOf`: queries/version-reads.ts), and the
 * bytes of the answer. Every replica checks the same counter, so none serves a list older than
 * the last write committed before the request came. The answers are the same for every member
 * (VIEWER and up read the same lists), so they are kept per workspace, not per user; the role
 * check comes before. A list item holds only the document's own columns and its visible-children
 * count, both changed only by writes to the workspace's documents, which bump its version (the
 * counts in the same statement, by their triggers).
 *
 * The bodies are JSON.stringify of the presented items, byte for byte what the routes' response
 * schemas wrote (the presenters list the fields in the schemas' order; fast-json-stringify writes
 * strings and integers as JSON.stringify does): test/list-answers.test.ts compares them.
 */
export function rememberedLists(
  prepared: Pick<PreparedStatements, 'listChildren'>,
  versionOf: (workspaceId: string) => Promise<number>,
  db: CommonQueryMethods,
  maxBytes = MAX_BYTES,
): ListAnswers {
  const answer = rememberedAnswers<{ empty: boolean }>(maxBytes);
  const json = (items: readonly unknown[]) => ({
    body: Buffer.from(JSON.stringify(success(items))),
    meta: { empty: items.length === 0 },
  });

  return {
    async children(workspaceId, parentId, acceptsGzip = false) {
      const version = await versionOf(workspaceId);
      const { meta, ...sent } = await answer(
        `c:${workspaceId}:${parentId ?? ''}`,
        version,
        async () => json((await prepared.listChildren(workspaceId, parentId)).map(presentListItem)),
        acceptsGzip,
      );
      return { ...sent, empty: meta.empty };
    },
    async ancestors(workspaceId, id, acceptsGzip = false) {
      const version = await versionOf(workspaceId);
      const { meta: _, ...sent } = await answer(
        `a:${workspaceId}:${id}`,
        version,
        async () => json((await ancestorsOf(db, id)).map(presentBreadcrumb)),
        acceptsGzip,
      );
      return sent;
    },
  };
}
