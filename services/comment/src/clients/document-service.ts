import { z } from '@wiki/db';
import type { InternalGet } from './internal-fetch.js';

const answer = z.object({ data: z.object({ id: z.string(), workspaceId: z.string() }) });

export interface RemoteDocument {
  id: string;
  workspaceId: string;
}

/** The document service's `GET /internal/documents/:id`: the document, or null when it does not exist. */
export function documentServiceClient(baseUrl: string, get: InternalGet) {
  return {
    async fetchDocument(id: string): Promise<RemoteDocument | null> {
      const body = await get(`${baseUrl}/internal/documents/${encodeURIComponent(id)}`);
      if (body === null) return null;
      const { data } = answer.parse(body);
      return { id: data.id, workspaceId: data.workspaceId };
    },
  };
}
export type DocumentServiceClient = ReturnType<typeof documentServiceClient>;
