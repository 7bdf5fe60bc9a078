import { z } from '@wiki/db';
import type { ServiceClient } from './service-client.js';

/** A user as the workspace service describes them to other services. */
export interface RemoteUser {
  id: string;
  idpUid: string | null;
  email: string | null;
  name: string;
  avatarUrl: string | null;
}

const answer = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullish(),
  avatarUrl: z.string().nullish(),
  idpUid: z.string().nullish(),
});

/**
 * The workspace service's `GET /internal/users/:idOrIdpUid`: the read-through behind the users
 * projections, for a user whose user.upserted event has not arrived (or never will, e.g. after a
 * stream reset). Null for a user it does not know; a 503 when it cannot be asked.
 */
export async function fetchWorkspaceUser(
  client: ServiceClient,
  idOrIdpUid: string,
  requestId?: string,
): Promise<RemoteUser | null> {
  return client.get('workspace', `/internal/users/${encodeURIComponent(idOrIdpUid)}`, {
    requestId,
    parse: (data) => {
      const user = answer.parse(data);
      return {
        id: user.id,
        idpUid: user.idpUid ?? null,
        email: user.email ?? null,
        name: user.name,
        avatarUrl: user.avatarUrl ?? null,
      };
    },
  });
}
