import { cutText, isAcceptableImageUrl } from '@wiki/http';

/**
 * The profile claims an identity provider sends (`name`, `picture`) as the local user record can
 * keep them. A claim we cannot keep never blocks a sign-in: an over-long name is cut, a picture
 * that is not a safe absolute http(s) image URL is dropped (the stored one stays).
 */

/** The longest user name kept (the workspace service's users.name limit). */
export const USER_NAME_MAX = 255;

/** The name trimmed and cut to USER_NAME_MAX characters (on a character boundary); undefined when blank. */
export function profileName(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? cutText(trimmed, USER_NAME_MAX).trim() : undefined;
}

/**
 * The picture when it passes the image URL rule every avatarUrl follows, and is absolute: a path
 * from an identity provider would resolve against this site, not the provider's.
 */
export function profilePicture(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  return isAcceptableImageUrl(value, { allowPath: false }) ? value : undefined;
}
