import { fetchWorkspaceUser, type ServiceClient } from '@wiki/auth';
import type { DatabasePool } from '@wiki/db';
import { findUsers, saveUser, type UserProfile, type UserRow } from '../db/users.js';

export interface Logger {
  warn(obj: object, msg?: string): void;
}

/** Shown for an author the workspace service does not know (or cannot be asked about right now). */
export const UNKNOWN_USER_NAME = 'Unknown user';

/**
 * Names and avatars of users, from the local projection (fed by user.upserted) with a look-up at
 * the workspace service for users it has not seen yet. A failed look-up never fails the request:
 * the comment is still worth showing, with a placeholder name.
 */
export function userDirectory(pool: DatabasePool, peers: ServiceClient, logger: Logger) {
  async function lookUp(id: string, requestId?: string): Promise<UserRow | null> {
    try {
      const profile = await fetchWorkspaceUser(peers, id, requestId);
      if (!profile) return null;
      await saveUser(pool, profile, false);
      return { id, name: profile.name, avatarUrl: profile.avatarUrl ?? null };
    } catch (error) {
      logger.warn({ userId: id, err: error }, 'user look-up failed; showing a placeholder');
      return null;
    }
  }

  return {
    /**
     * Every requested id maps to a row (placeholders for unknown users). `requestId`, the request
     * being served, goes with the look-ups.
     */
    async profiles(ids: Iterable<string>, requestId?: string): Promise<Map<string, UserRow>> {
      const wanted = [...new Set(ids)];
      const found = new Map((await findUsers(pool, wanted)).map((u) => [u.id, u]));
      const missing = wanted.filter((id) => !found.has(id));
      const fetched = await Promise.all(missing.map((id) => lookUp(id, requestId)));
      for (const [i, id] of missing.entries())
        found.set(id, fetched[i] ?? { id, name: UNKNOWN_USER_NAME, avatarUrl: null });
      return found;
    },
    /** Remembers the caller's profile from their identity, when the projection has no row yet. */
    async remember(user: UserProfile): Promise<void> {
      await saveUser(pool, user, false);
    },
  };
}
export type UserDirectory = ReturnType<typeof userDirectory>;
