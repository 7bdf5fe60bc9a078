import { type CommonQueryMethods, sql, z } from '@wiki/db';

export const UserRow = z.object({
  id: z.string(),
  idpUid: z.string().nullable(),
  email: z.string(),
  emailVerified: z.boolean(),
  name: z.string(),
  avatarUrl: z.string().nullable(),
  status: z.string(),
  lastLoginAt: z.string().nullable(),
  createdAt: z.string(),
});
export type UserRow = z.infer<typeof UserRow>;

/** The UserRow columns of the users table under `alias`. */
export const userColumns = (alias: string) => {
  const u = sql.identifier([alias]);
  return sql.fragment`
  ${u}.id, ${u}.idp_uid AS "idpUid", ${u}.email, ${u}.email_verified AS "emailVerified", ${u}.name,
  ${u}.avatar_url AS "avatarUrl", ${u}.status, ${u}.last_login_at AS "lastLoginAt", ${u}.created_at AS "createdAt"`;
};
const columns = sql.fragment`
  id, idp_uid AS "idpUid", email, email_verified AS "emailVerified", name, avatar_url AS "avatarUrl", status,
  last_login_at AS "lastLoginAt", created_at AS "createdAt"`;

export function findUserById(db: CommonQueryMethods, id: string): Promise<UserRow | null> {
  return db.maybeOne(sql.type(UserRow)`SELECT ${columns} FROM users WHERE id = ${id}`);
}

export function findUserByIdpUid(db: CommonQueryMethods, idpUid: string, lock = false): Promise<UserRow | null> {
  return db.maybeOne(sql.type(UserRow)`
    SELECT ${columns} FROM users WHERE idp_uid = ${idpUid} ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
}

/**
 * The rows whose email may be matched by (migration 0003, whose unique index has this predicate):
 * one the identity provider vouched for at the last sign-in, or one an operator gave a user who has
 * not signed in yet. Other rows' emails are labels of their own accounts and match nothing. `u` is
 * the users table's alias.
 */
export const trustedEmail = sql.fragment`(u.email_verified OR u.idp_uid IS NULL)`;

/** The one user who holds `email` with trust (`trustedEmail`), if any. */
export function findUserByTrustedEmail(db: CommonQueryMethods, email: string, lock = false): Promise<UserRow | null> {
  return db.maybeOne(sql.type(UserRow)`
    SELECT ${columns} FROM users u WHERE lower(u.email) = lower(${email}) AND ${trustedEmail}
    ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
}

/** Inserts a user unless one with this idp uid appeared meanwhile (then null: re-read it). */
export function insertUser(
  db: CommonQueryMethods,
  user: { idpUid: string; email: string; emailVerified: boolean; name: string; avatarUrl: string | null },
): Promise<UserRow | null> {
  return db.maybeOne(sql.type(UserRow)`
    INSERT INTO users (idp_uid, email, email_verified, name, avatar_url, last_login_at)
    VALUES (${user.idpUid}, ${user.email}, ${user.emailVerified}, ${user.name}, ${user.avatarUrl}, now())
    ON CONFLICT (idp_uid) DO NOTHING
    RETURNING ${columns}`);
}

/** Records a sign-in and applies the profile fields that changed (and links the idp uid). */
export function updateUserOnSignIn(
  db: CommonQueryMethods,
  id: string,
  changes: { idpUid?: string; email?: string; emailVerified?: boolean; name?: string; avatarUrl?: string | null },
): Promise<UserRow> {
  const sets = [sql.fragment`last_login_at = now()`];
  if (changes.idpUid !== undefined) sets.push(sql.fragment`idp_uid = ${changes.idpUid}`);
  if (changes.email !== undefined) sets.push(sql.fragment`email = ${changes.email}`);
  if (changes.emailVerified !== undefined) sets.push(sql.fragment`email_verified = ${changes.emailVerified}`);
  if (changes.name !== undefined) sets.push(sql.fragment`name = ${changes.name}`);
  if (changes.avatarUrl !== undefined) sets.push(sql.fragment`avatar_url = ${changes.avatarUrl}`);
  if (sets.length > 1) sets.push(sql.fragment`updated_at = now()`);
  return db.one(sql.type(UserRow)`
    UPDATE users SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${id} RETURNING ${columns}`);
}
