import type { DatabasePool } from '@wiki/db';
import { notFound } from '@wiki/http';
import type { DocumentServiceClient } from '../clients/document-service.js';
import { findDocument, upsertDocument } from '../db/documents.js';

export interface KnownDocument {
  id: string;
  workspaceId: string;
}

/**
 * Which documents exist and in which workspace, from the local projection (fed by document
 * events), asking the document service when the projection has never heard of one (a document
 * created a moment ago). A tombstoned (deleted) document is gone without asking.
 */
export function documentDirectory(pool: DatabasePool, client: DocumentServiceClient) {
  return {
    /** `requestId`, the request being served, goes with the look-up. */
    async require(id: string, requestId?: string): Promise<KnownDocument> {
      const local = await findDocument(pool, id);
      if (local) {
        if (local.deleted) throw notFound('Document');
        return { id: local.id, workspaceId: local.workspaceId };
      }
      const remote = await client.fetchDocument(id, requestId);
      if (!remote) throw notFound('Document');
      await upsertDocument(pool, remote, false);
      // Re-read: a deletion event may have landed while we were asking.
      const settled = await findDocument(pool, id);
      if (!settled || settled.deleted) throw notFound('Document');
      return { id: settled.id, workspaceId: settled.workspaceId };
    },
  };
}
export type DocumentDirectory = ReturnType<typeof documentDirectory>;
