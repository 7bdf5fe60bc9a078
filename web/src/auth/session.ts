import type { AuthConfig } from '../api/types';

/** Who is signed in and how their token is kept fresh: one per identity provider kind. */
export interface Session {
  readonly provider: AuthConfig['provider'];
  /** The access token for API and collab requests, or null when signed out. */
  accessToken(): Promise<string | null>;
  /** Sends the person to sign in; they come back to `returnTo` afterwards. */
  signIn(returnTo: string): Promise<void>;
  /**
   * Finishes a sign-in on /auth/callback and says where to go next, or null when this page is a
   * silent renewal's hidden frame (nothing to show there).
   */
  completeSignIn(): Promise<string | null>;
  /**
   * The API refused the token (expired, revoked): forget it here without ending the identity
   * provider's session, and sign in again, coming back to `returnTo`.
   */
  signInAgain(returnTo: string): Promise<void>;
  /** Ends the session here and, where the provider has one, at the provider too. */
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
