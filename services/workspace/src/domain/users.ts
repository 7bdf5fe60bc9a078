import { profileName, USER_NAME_MAX } from '@wiki/auth';
import { cutText, isAcceptableImageUrl } from '@wiki/http';

/** Shapes and rules of the local user record, kept in step with the identity provider. */

export const NAME_MAX = USER_NAME_MAX;

/** The name used when the identity provider gives none: the local part of the email. */
export function displayName(name: string | undefined | null, email: string): string {
  return profileName(name) ?? cutText(email.split('@')[0] || email, NAME_MAX);
}

/** ARCHITECTURE 5.5: "<name>'s workspace", cut to the workspace name limit. */
export function defaultWorkspaceName(userName: string): string {
  return cutText(`${userName}'s workspace`, 255);
}

/**
 * avatarUrl as the record keeps it: the image URL rule coverImageUrl follows (libs/http). One
 * that fails it is dropped rather than refused, so a provider's odd `picture` never blocks a sign-in.
 */
export function acceptableAvatar(value: string | null | undefined): string | undefined {
  return value && isAcceptableImageUrl(value) ? value : undefined;
}

export interface ProfileFields {
  email: string;
  /** Whether the identity provider vouched for `email` (only then may it match invitations). */
  emailVerified: boolean;
  name: string;
  avatarUrl: string | null;
}

/**
 * The profile fields that differ between the stored user and what the provider says now.
 * A missing name or avatar in the token keeps the stored one (providers omit claims); the email
 * and whether it is verified always follow the latest token, as one pair.
 */
export function profileChanges(
  stored: ProfileFields,
  given: { email: string; emailVerified: boolean; name?: string | null; avatarUrl?: string | null },
): Partial<ProfileFields> {
  const changes: Partial<ProfileFields> = {};
  if (given.email !== stored.email) changes.email = given.email;
  if (given.emailVerified !== stored.emailVerified) changes.emailVerified = given.emailVerified;
  const name = profileName(given.name);
  if (name && name !== stored.name) changes.name = name;
  const avatarUrl = acceptableAvatar(given.avatarUrl);
  if (avatarUrl !== undefined && avatarUrl !== stored.avatarUrl) changes.avatarUrl = avatarUrl;
  return changes;
}
