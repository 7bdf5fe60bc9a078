import { z } from '@wiki/db';
import type { ServiceClient } from '@wiki/service-client';

const answer = z.object({ id: z.string(), workspaceId: z.string() });

export interface RemoteDocument {
  id: string;
  workspaceId: string;
}

/** The document service's `GET /internal/documents/:id`: the document, or null when it does not exist. */
export function documentServiceClient(peers: ServiceClient) {
  return {
    fetchDocument(id: string, requestId?: string): Promise<RemoteDocument | null> {
      return peers.get('document', `/internal/documents/${encodeURIComponent(id)}`, {
        requestId,
        parse: (data) => {
          const doc = answer.parse(data);
          return { id: doc.id, workspaceId: doc.workspaceId };
        },
      });
    },
  };
}
export type DocumentServiceClient = ReturnType<typeof documentServiceClient>;
