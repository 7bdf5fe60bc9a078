import { resolveEmailPreferences } from '@wiki/events';
import type { PreferenceRow } from '../db/preferences.js';
import type { UserRow } from '../db/users.js';

/** UserResponse of the spec. */
export function presentUser(user: UserRow, preference: PreferenceRow) {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    avatarUrl: user.avatarUrl,
    status: user.status,
    lastLoginAt: user.lastLoginAt,
    createdAt: user.createdAt,
    preference: { ...preference, emailNotifications: resolveEmailPreferences(preference.emailNotifications) },
  };
}

/** What the gateway and other services learn about a user. */
export function presentInternalUser(user: UserRow) {
  return {
    id: user.id,
    email: user.email,
    emailVerified: user.emailVerified,
    name: user.name,
    avatarUrl: user.avatarUrl,
    idpUid: user.idpUid,
  };
}

/** The gateway's answer for an MCP key: the user the key acts as. */
export function presentKeyOwner(user: UserRow) {
  return { userId: user.id, email: user.email, name: user.name, avatarUrl: user.avatarUrl, idpUid: user.idpUid };
}
