import type { DatabaseTransactionConnection } from '@wiki/db';
import { conflict, notFound } from '@wiki/http';
import { findPreferences, type PreferencePatch, type PreferenceRow, savePreferences } from '../db/preferences.js';
import {
  findUserByEmail,
  findUserById,
  findUserByIdpUid,
  insertUser,
  type UserRow,
  updateUserOnSignIn,
} from '../db/users.js';
import { defaultWorkspaceName, displayName, profileChanges } from '../domain/users.js';
import { emitUserUpserted } from '../events/producers.js';
import type { Context } from './context.js';
import { createWorkspaceInTx } from './workspaces.js';

export async function getMe(ctx: Context, userId: string): Promise<{ user: UserRow; preference: PreferenceRow }> {
  const user = await findUserById(ctx.pool, userId);
  if (!user) throw notFound('User');
  return { user, preference: await findPreferences(ctx.pool, userId) };
}

export async function updatePreferences(
  ctx: Context,
  userId: string,
  patch: PreferencePatch,
): Promise<{ user: UserRow; preference: PreferenceRow }> {
  const user = await findUserById(ctx.pool, userId);
  if (!user) throw notFound('User');
  return { user, preference: await savePreferences(ctx.pool, userId, patch) };
}

export interface SignInInput {
  idpUid: string;
  email: string;
  name?: string | null;
  avatarUrl?: string | null;
}

/**
 * The gateway's find-or-create for a verified token: by idp uid, else an email-only user not yet
 * linked to any provider account, else a new user with their default workspace (5.5). A user
 * already linked to another idp uid keeps their email: a second account with it is a conflict.
 */
export async function resolveUser(ctx: Context, input: SignInInput): Promise<UserRow> {
  const email = input.email.trim();
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.pool.transaction((tx) => resolveInTx(tx, { ...input, email }));
    } catch (error) {
      // Two first requests of the same new user raced on the email index: the retry finds the row.
      if (attempt < 3 && (error as Error).name === 'UniqueIntegrityConstraintViolationError') continue;
      throw error;
    }
  }
}

async function resolveInTx(tx: DatabaseTransactionConnection, input: SignInInput): Promise<UserRow> {
  const existing = await findUserByIdpUid(tx, input.idpUid, true);
  if (existing) return signInExisting(tx, existing, input);
  const byEmail = await findUserByEmail(tx, input.email, true);
  if (byEmail) {
    // Committed by a concurrent first sign-in of this same account since we looked.
    if (byEmail.idpUid === input.idpUid) return signInExisting(tx, byEmail, input);
    if (byEmail.idpUid !== null) throw conflict('Another account already uses this email address');
    const user = await updateUserOnSignIn(tx, byEmail.id, { idpUid: input.idpUid, ...profileChanges(byEmail, input) });
    await emitUserUpserted(tx, user);
    return user;
  }
  const user = await insertUser(tx, {
    idpUid: input.idpUid,
    email: input.email,
    name: displayName(input.name, input.email),
    avatarUrl: input.avatarUrl ?? null,
  });
  if (!user) {
    // Created by a concurrent request since we looked: use theirs.
    const raced = await findUserByIdpUid(tx, input.idpUid, true);
    if (!raced) throw conflict('The user changed while signing in; try again');
    return signInExisting(tx, raced, input);
  }
  await emitUserUpserted(tx, user);
  await createWorkspaceInTx(tx, user.id, { name: defaultWorkspaceName(user.name), isDefault: true });
  return user;
}

async function signInExisting(
  tx: DatabaseTransactionConnection,
  existing: UserRow,
  input: SignInInput,
): Promise<UserRow> {
  const changes = profileChanges(existing, input);
  const user = await updateUserOnSignIn(tx, existing.id, changes);
  if (Object.keys(changes).length > 0) await emitUserUpserted(tx, user);
  return user;
}

/** A local user id, or else an idp uid. */
export async function findInternalUser(ctx: Context, idOrIdpUid: string): Promise<UserRow> {
  const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrIdpUid);
  const user =
    (isUuid ? await findUserById(ctx.pool, idOrIdpUid) : null) ?? (await findUserByIdpUid(ctx.pool, idOrIdpUid));
  if (!user) throw notFound('User');
  return user;
}
