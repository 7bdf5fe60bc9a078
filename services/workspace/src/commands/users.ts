import type { DatabaseTransactionConnection } from '@wiki/db';
import { notFound, refusal } from '@wiki/http';
import {
  DEFAULT_PREFERENCES,
  lockPreferences,
  type PreferencePatch,
  type PreferenceRow,
  savePreferences,
} from '../db/preferences.js';
import {
  findUserById,
  findUserByIdpUid,
  findUserByTrustedEmail,
  insertUser,
  type UserRow,
  updateUserOnSignIn,
} from '../db/users.js';
import {
  notifiedPreferences,
  notifiedPreferencesDiffer,
  type UnsubscribeTarget,
  unsubscribePatch,
} from '../domain/email-preferences.js';
import { acceptableAvatar, defaultWorkspaceName, displayName, profileChanges } from '../domain/users.js';
import { emitPreferencesChanged, emitUserUpserted } from '../events/producers.js';
import type { Context } from './context.js';
import { createWorkspaceInTx } from './workspaces.js';

export async function getMe(ctx: Context, userId: string): Promise<{ user: UserRow; preference: PreferenceRow }> {
  const me = await ctx.reads.findMe(userId);
  if (!me) throw notFound('User');
  return me;
}

export function findUser(ctx: Context, userId: string): Promise<UserRow | null> {
  return findUserById(ctx.pool, userId);
}

export async function updatePreferences(
  ctx: Context,
  userId: string,
  patch: PreferencePatch,
): Promise<{ user: UserRow; preference: PreferenceRow }> {
  const user = await findUserById(ctx.pool, userId);
  if (!user) throw notFound('User');
  const notified =
    patch.notificationsEnabled !== undefined || patch.emailNotifications !== undefined || patch.locale !== undefined;
  if (!notified) return { user, preference: await savePreferences(ctx.pool, userId, patch) };
  return ctx.pool.transaction(async (tx) => {
    // Read under lock, so a concurrent save cannot slip between the comparison and the event.
    const before = notifiedPreferences((await lockPreferences(tx, userId)) ?? DEFAULT_PREFERENCES);
    const preference = await savePreferences(tx, userId, patch);
    const after = notifiedPreferences(preference);
    if (notifiedPreferencesDiffer(before, after)) await emitPreferencesChanged(tx, userId, after);
    return { user, preference };
  });
}

/** One-click unsubscribe (RFC 8058): the link's type, or every type, e-mailed `off`; a repeat changes nothing. */
export function unsubscribe(
  ctx: Context,
  userId: string,
  target: UnsubscribeTarget,
): Promise<{ user: UserRow; preference: PreferenceRow }> {
  return updatePreferences(ctx, userId, { emailNotifications: unsubscribePatch(target) });
}

export interface SignInInput {
  idpUid: string;
  email: string;
  /** Whether the identity provider vouches for `email`; the gateway always says, anyone else: unverified. */
  emailVerified?: boolean;
  name?: string | null;
  avatarUrl?: string | null;
}

type SignIn = SignInInput & { emailVerified: boolean };

/**
 * The gateway's find-or-create for a verified token: by idp uid, else an email-only user not yet
 * linked to any provider account (only when the provider vouches for the email: ARCHITECTURE 5.13),
 * else a new user with their default workspace (5.5).
 *
 * Only an address held with trust (verified, or an email-only user's: db/users.ts `trustedEmail`)
 * links or refuses. A sign-in may not take an address another account holds that way (409; the
 * gateway answers 401); an unverified email on someone's account is a label of that account and
 * blocks nobody, so whoever signs in first with another person's unverified address cannot keep
 * that person out.
 */
export async function resolveUser(ctx: Context, input: SignInInput): Promise<UserRow> {
  const email = input.email.trim();
  const emailVerified = input.emailVerified === true;
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.pool.transaction((tx) => resolveInTx(tx, { ...input, email, emailVerified }));
    } catch (error) {
      // Two first requests of the same new user raced on an index (idp uid, or the verified email):
      // the retry finds the row, or the other account now holding the address (409).
      if (attempt < 3 && (error as Error).name === 'UniqueIntegrityConstraintViolationError') continue;
      throw error;
    }
  }
}

const emailTaken = () => refusal('EMAIL_TAKEN', 'Another account already uses this email address');

async function resolveInTx(tx: DatabaseTransactionConnection, input: SignIn): Promise<UserRow> {
  const existing = await findUserByIdpUid(tx, input.idpUid, true);
  if (existing) return signInExisting(tx, existing, input);
  const holder = await findUserByTrustedEmail(tx, input.email, true);
  if (holder) {
    // Committed by a concurrent first sign-in of this same account since we looked.
    if (holder.idpUid === input.idpUid) return signInExisting(tx, holder, input);
    if (holder.idpUid !== null) throw emailTaken();
    // Whoever can put an address into an unverified claim must not take over the account known by it
    // (409 as for an email linked elsewhere: the gateway refuses the sign-in with a 401).
    if (!input.emailVerified)
      throw refusal(
        'EMAIL_UNVERIFIED',
        'This email address belongs to an account; verify it with your identity provider first',
      );
    const user = await updateUserOnSignIn(tx, holder.id, { idpUid: input.idpUid, ...profileChanges(holder, input) });
    await emitUserUpserted(tx, user);
    return user;
  }
  const user = await insertUser(tx, {
    idpUid: input.idpUid,
    email: input.email,
    emailVerified: input.emailVerified,
    name: displayName(input.name, input.email),
    avatarUrl: acceptableAvatar(input.avatarUrl) ?? null,
  });
  if (!user) {
    // Created by a concurrent request since we looked: use theirs.
    const raced = await findUserByIdpUid(tx, input.idpUid, true);
    if (!raced) throw refusal('USER_CHANGED', 'The user changed while signing in; try again');
    return signInExisting(tx, raced, input);
  }
  await emitUserUpserted(tx, user);
  await createWorkspaceInTx(tx, user.id, { name: defaultWorkspaceName(user.name), isDefault: true });
  return user;
}

async function signInExisting(tx: DatabaseTransactionConnection, existing: UserRow, input: SignIn): Promise<UserRow> {
  const changes = profileChanges(existing, input);
  // The account takes an address anew (another one, or the same now vouched for): not while another
  // account holds it with trust. Two provider accounts both verified for one address is the
  // provider's to settle; the account that comes second is refused, as a new one would be.
  if (changes.email !== undefined || changes.emailVerified === true) {
    const holder = await findUserByTrustedEmail(tx, input.email);
    if (holder && holder.id !== existing.id) throw emailTaken();
  }
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
