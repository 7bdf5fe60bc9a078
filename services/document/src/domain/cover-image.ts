import { invalidField, isAcceptableImageUrl } from '@wiki/http';

/**
 * coverImageUrl follows the image URL rule shared with users' avatarUrl (libs/http image-url):
 * an absolute http(s) URL or a same-origin path starting with a single "/"; null clears it.
 * The length limit is in the JSON schema (COVER_URL_MAX).
 */
export const isAcceptableCoverUrl = (value: string): boolean => isAcceptableImageUrl(value);

/** Throws a 400 naming coverImageUrl unless the value is null, absent or acceptable. */
export function checkCoverImageUrl(value: string | null | undefined): void {
  if (value === undefined || value === null) return;
  if (!isAcceptableCoverUrl(value))
    throw invalidField('coverImageUrl', 'must be an absolute http(s) URL or a path starting with a single "/"');
}
