import { type CommonQueryMethods, sql, z } from '@wiki/db';
import type { ServiceClient } from '@wiki/service-client';

const remoteDocument = z.object({ workspaceId: z.string() });

/**
 * A document's workspace from the title projection, else from the document service (a document
 * created a moment ago, or whose row predates the column). Null when neither knows it.
 */
export async function workspaceOfDocument(
  db: CommonQueryMethods,
  peers: ServiceClient,
  documentId: string,
  requestId?: string,
): Promise<string | null> {
  const known = await db.maybeOneFirst(sql.type(z.object({ workspace_id: z.string().nullable() }))`
    SELECT workspace_id FROM document_titles WHERE id = ${documentId}`);
  if (known) return known;
  const path = `/internal/documents/${encodeURIComponent(documentId)}`;
  const remote = await peers.get('document', path, { requestId, parse: (body) => remoteDocument.parse(body) });
  return remote?.workspaceId ?? null;
}
