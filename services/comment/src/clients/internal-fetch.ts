import { IDENTITY_HEADER } from '@wiki/auth';

/** The JSON body of a 2xx answer, null for a 404; throws on anything else. */
export type InternalGet = (url: string) => Promise<unknown | null>;

/**
 * GET on another service's `/internal/...` route with this service's token (kind `service`).
 * A short timeout: a slow peer must not hold a user's request for long.
 */
export function internalGet(token: () => Promise<string>, timeoutMs = 5000): InternalGet {
  return async (url) => {
    const res = await fetch(url, {
      headers: { [IDENTITY_HEADER]: await token() },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(`GET ${new URL(url).pathname} answered ${res.status}`);
    }
    return res.json();
  };
}
