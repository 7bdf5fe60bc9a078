/** Shapes and rules of the local user record, kept in step with the identity provider. */

export const NAME_MAX = 255;

/** The name used when the identity provider gives none: the local part of the email. */
export function displayName(name: string | undefined | null, email: string): string {
  const trimmed = name?.trim();
  if (trimmed) return trimmed.slice(0, NAME_MAX);
  return (email.split('@')[0] || email).slice(0, NAME_MAX);
}

/** ARCHITECTURE 5.5: "<name>'s workspace", cut to the workspace name limit. */
export function defaultWorkspaceName(userName: string): string {
  return `${userName}'s workspace`.slice(0, 255);
}

export interface ProfileFields {
  email: string;
  name: string;
  avatarUrl: string | null;
}

/**
 * The profile fields that differ between the stored user and what the provider says now.
 * A missing name or avatar in the token keeps the stored one (providers omit claims).
 */
export function profileChanges(
  stored: ProfileFields,
  given: { email: string; name?: string | null; avatarUrl?: string | null },
): Partial<ProfileFields> {
  const changes: Partial<ProfileFields> = {};
  if (given.email !== stored.email) changes.email = given.email;
  const name = given.name?.trim();
  if (name && name.slice(0, NAME_MAX) !== stored.name) changes.name = name.slice(0, NAME_MAX);
  if (given.avatarUrl !== undefined && given.avatarUrl !== null && given.avatarUrl !== stored.avatarUrl)
    changes.avatarUrl = given.avatarUrl;
  return changes;
}
