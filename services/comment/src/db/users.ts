import { type CommonQueryMethods, sql, z } from '@wiki/db';

export const UserRow = z.object({
  id: z.string(),
  name: z.string(),
  avatarUrl: z.string().nullable(),
});
export type UserRow = z.infer<typeof UserRow>;

export interface UserProfile {
  id: string;
  name: string;
  email?: string | null;
  avatarUrl?: string | null;
  idpUid?: string | null;
}

export function findUsers(db: CommonQueryMethods, ids: readonly string[]): Promise<readonly UserRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.any(sql.type(UserRow)`
    SELECT id, name, avatar_url AS "avatarUrl" FROM user_projection WHERE id = ANY(${sql.array(ids, 'uuid')})`);
}

/**
 * Stores a user's profile. `overwrite` is for user.upserted events (the source of truth); look-ups
 * and the caller's own identity only fill a missing row, so they never undo a newer event.
 */
export async function saveUser(db: CommonQueryMethods, user: UserProfile, overwrite: boolean): Promise<void> {
  const onConflict = overwrite
    ? sql.fragment`DO UPDATE SET name = EXCLUDED.name, email = EXCLUDED.email, avatar_url = EXCLUDED.avatar_url,
        idp_uid = EXCLUDED.idp_uid, updated_at = now()`
    : sql.fragment`DO NOTHING`;
  await db.query(sql.unsafe`
    INSERT INTO user_projection (id, name, email, avatar_url, idp_uid)
    VALUES (${user.id}, ${user.name}, ${user.email ?? null}, ${user.avatarUrl ?? null}, ${user.idpUid ?? null})
    ON CONFLICT (id) ${onConflict}`);
}
