import { fetchWorkspaceUser, type ServiceClient } from '@wiki/auth';
import type { DatabasePool } from '@wiki/db';
import type { Actor } from './context.js';
import { cacheUser, findUser, rememberUser, type UserRow } from './db/users.js';

/** `{ id, name, avatarUrl }` as DocumentResponse shows a user. */
export interface UserRef {
  id: string;
  name: string;
  avatarUrl: string | null;
}

export interface UserDirectory {
  /**
   * A local user by id or identity-provider uid: the projection first, then the workspace service
   * (with `requestId`, the request being served); a 503 when it cannot be asked.
   */
  resolve(idOrIdpUid: string, requestId?: string): Promise<UserRow | null>;
  /** Makes sure a signed-in caller is in the projection (once per process and user). */
  remember(actor: Actor): Promise<void>;
  /** The reference for a user the projection did not know when the document was read. */
  refOf(userId: string, requestId?: string): Promise<UserRef>;
}

const MAX_REMEMBERED = 50_000;

export function createUserDirectory(
  pool: DatabasePool,
  peers: ServiceClient,
  log: { warn(obj: object, msg?: string): void },
): UserDirectory {
  const remembered = new Set<string>();

  async function resolve(idOrIdpUid: string, requestId?: string): Promise<UserRow | null> {
    const local = await findUser(pool, idOrIdpUid);
    if (local) return local;
    const remote = await fetchWorkspaceUser(peers, idOrIdpUid, requestId);
    if (!remote) return null;
    await cacheUser(pool, remote);
    return { id: remote.id, idpUid: remote.idpUid, name: remote.name, avatarUrl: remote.avatarUrl };
  }

  return {
    resolve,
    async remember(actor) {
      if (remembered.has(actor.userId)) return;
      await rememberUser(pool, {
        id: actor.userId,
        idpUid: actor.idpUid,
        email: actor.email,
        name: actor.name,
        avatarUrl: actor.avatarUrl,
      });
      if (remembered.size >= MAX_REMEMBERED) remembered.clear();
      remembered.add(actor.userId);
    },
    async refOf(userId, requestId) {
      try {
        const user = await resolve(userId, requestId);
        if (user) return { id: user.id, name: user.name, avatarUrl: user.avatarUrl };
      } catch (error) {
        // A read must not fail because the workspace service is away: show the id without a name.
        log.warn({ err: error, userId }, 'user lookup failed');
      }
      return { id: userId, name: '', avatarUrl: null };
    },
  };
}
