import { type CommonQueryMethods, sql, z } from '@wiki/db';

export const UserRow = z.object({
  id: z.string(),
  idpUid: z.string().nullable(),
  name: z.string(),
  avatarUrl: z.string().nullable(),
});
export type UserRow = z.infer<typeof UserRow>;

export interface UserRecord {
  id: string;
  idpUid?: string | null;
  email?: string | null;
  name?: string | null;
  avatarUrl?: string | null;
}

const columns = sql.fragment`id, idp_uid AS "idpUid", name, avatar_url AS "avatarUrl"`;

/**
 * Writes what the workspace service announced (user.upserted) at `eventAt` (its occurredAt),
 * replacing what was known, unless the row already holds a newer announcement: a retried event
 * arrives after the ones that followed it and must not undo them. One statement, so two consumers
 * applying events of the same user cannot interleave between the check and the write.
 */
export async function upsertUser(db: CommonQueryMethods, user: UserRecord, eventAt: string): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO users (id, idp_uid, email, name, avatar_url, event_at, updated_at)
    VALUES (${user.id}, ${user.idpUid ?? null}, ${user.email ?? null}, ${user.name ?? ''}, ${user.avatarUrl ?? null}, ${eventAt}::timestamptz, now())
    ON CONFLICT (id) DO UPDATE SET idp_uid = coalesce(EXCLUDED.idp_uid, users.idp_uid), email = coalesce(EXCLUDED.email, users.email),
      name = EXCLUDED.name, avatar_url = EXCLUDED.avatar_url, event_at = EXCLUDED.event_at, updated_at = now()
    WHERE users.event_at IS NULL OR users.event_at <= EXCLUDED.event_at`);
}

/**
 * Stores what the workspace service answered a look-up (the read-through), with no event time, so
 * that any announcement replaces it. It replaces a row no announcement wrote (one remembered from a
 * request), never an announced one: that is the event stream's to change.
 */
export async function cacheUser(db: CommonQueryMethods, user: UserRecord): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO users (id, idp_uid, email, name, avatar_url)
    VALUES (${user.id}, ${user.idpUid ?? null}, ${user.email ?? null}, ${user.name ?? ''}, ${user.avatarUrl ?? null})
    ON CONFLICT (id) DO UPDATE SET idp_uid = coalesce(EXCLUDED.idp_uid, users.idp_uid), email = coalesce(EXCLUDED.email, users.email),
      name = EXCLUDED.name, avatar_url = EXCLUDED.avatar_url, updated_at = now()
    WHERE users.event_at IS NULL`);
}

/** Records a user seen in a request, unless an announcement already did (it is never overwritten; event_at stays NULL). */
export async function rememberUser(db: CommonQueryMethods, user: UserRecord): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO users (id, idp_uid, email, name, avatar_url)
    VALUES (${user.id}, ${user.idpUid ?? null}, ${user.email ?? null}, ${user.name ?? ''}, ${user.avatarUrl ?? null})
    ON CONFLICT (id) DO NOTHING`);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A user by local id or, failing that, by identity-provider uid (the collab server may send either). */
export async function findUser(db: CommonQueryMethods, idOrIdpUid: string): Promise<UserRow | null> {
  if (UUID.test(idOrIdpUid)) {
    const byId = await db.maybeOne(sql.type(UserRow)`SELECT ${columns} FROM users WHERE id = ${idOrIdpUid}`);
    if (byId) return byId;
  }
  return db.maybeOne(
    sql.type(UserRow)`SELECT ${columns} FROM users WHERE idp_uid = ${idOrIdpUid} ORDER BY updated_at DESC LIMIT 1`,
  );
}
