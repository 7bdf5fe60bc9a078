import type { AuthConfig } from '../api/types';

/** Who is signed in and how their token is kept fresh: one per identity provider kind. */
export interface Session {
  readonly provider: AuthConfig['provider'];
  /** The access token for API and collab requests, or null when signed out. */
  accessToken(): Promise<string | null>;
  /** Sends the person to sign in; they come back to `returnTo` afterwards. */
  signIn(returnTo: string): Promise<void>;
  /** Finishes a redirect sign-in on /auth/callback and says where to go next. */
  completeSignIn(): Promise<string>;
  signOut(): Promise<void>;
  /** Calls back whenever the token changes (renewed, signed out); returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

/** Only same-origin paths are followed after sign-in (no open redirect through `returnTo`). */
export function safeReturnTo(value: string | null | undefined): string {
  if (!value?.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  if (value.startsWith('/auth/') || value.startsWith('/sign-in')) return '/';
  return value;
}

export async function loadAuthConfig(): Promise<AuthConfig> {
  const response = await fetch('/auth/config', { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`The sign-in settings could not be read (HTTP ${response.status}).`);
  return (await response.json()) as AuthConfig;
}
