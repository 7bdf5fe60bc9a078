import { serviceTokenSource } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { serviceUnavailable } from '@wiki/http';

export interface RemoteUser {
  id: string;
  idpUid: string | null;
  email: string | null;
  name: string;
  avatarUrl: string | null;
}

/**
 * The workspace service's internal user lookup: the read-through behind the users projection, for
 * a user whose user.upserted event has not arrived (or never will, e.g. after a stream reset).
 */
export function workspaceUsersClient(config: Pick<Config, 'urls' | 'internalTokenSecret'>) {
  const token = serviceTokenSource(config.internalTokenSecret, 'document');
  return {
    async fetchUser(idOrIdpUid: string): Promise<RemoteUser | null> {
      let res: Response;
      try {
        res = await fetch(`${config.urls.workspace}/internal/users/${encodeURIComponent(idOrIdpUid)}`, {
          headers: { 'x-wiki-identity': await token() },
          signal: AbortSignal.timeout(5000),
        });
      } catch {
        throw serviceUnavailable('The workspace service did not answer');
      }
      if (res.status === 404) return null;
      if (!res.ok) throw serviceUnavailable(`The workspace service answered ${res.status}`);
      const body = (await res.json()) as { data?: Partial<RemoteUser> };
      const data = body.data;
      if (!data || typeof data.id !== 'string')
        throw serviceUnavailable('The workspace service sent an unreadable user');
      return {
        id: data.id,
        idpUid: data.idpUid ?? null,
        email: data.email ?? null,
        name: data.name ?? '',
        avatarUrl: data.avatarUrl ?? null,
      };
    },
  };
}
export type WorkspaceUsersClient = ReturnType<typeof workspaceUsersClient>;
