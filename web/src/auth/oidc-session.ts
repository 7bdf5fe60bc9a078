import { UserManager, WebStorageStateStore } from 'oidc-client-ts';
import type { AuthConfig } from '../api/types';
import { type Session, safeReturnTo } from './session';

/**
 * AUTH_PROVIDER=oidc: Authorization Code + PKCE as the public client AUTH_CLIENT_ID against the
 * issuer's discovery document, redirect and silent renewal on /auth/callback (ARCHITECTURE 5.17).
 * The user (tokens) stays in sessionStorage: it ends with the tab, and a reload keeps it.
 */
export class OidcSession implements Session {
  readonly provider = 'oidc' as const;
  private readonly manager: UserManager;

  constructor(config: AuthConfig) {
    if (!config.issuer || !config.clientId) {
      throw new Error('The gateway has no AUTH_ISSUER or AUTH_CLIENT_ID for the browser to sign in with.');
    }
    const origin = window.location.origin;
    this.manager = new UserManager({
      authority: config.issuer,
      client_id: config.clientId,
      redirect_uri: `${origin}/auth/callback`,
      silent_redirect_uri: `${origin}/auth/callback`,
      post_logout_redirect_uri: `${origin}/`,
      response_type: 'code',
      scope: config.scope,
      automaticSilentRenew: true,
      userStore: new WebStorageStateStore({ store: window.sessionStorage }),
    });
  }

  async accessToken(): Promise<string | null> {
    const user = await this.manager.getUser();
    if (!user || user.expired) return null;
    return user.access_token;
  }

  async signIn(returnTo: string): Promise<void> {
    await this.manager.signinRedirect({ state: { returnTo: safeReturnTo(returnTo) } });
  }

  async completeSignIn(): Promise<string> {
    // One callback page for both the redirect and the silent renewal's iframe.
    const user = await this.manager.signinCallback();
    const state = user?.state as { returnTo?: string } | undefined;
    return safeReturnTo(state?.returnTo);
  }

  async signOut(): Promise<void> {
    await this.manager.removeUser();
    // The provider's end-session endpoint when it has one; otherwise signing out here is enough.
    const metadata = await this.manager.metadataService.getMetadata().catch(() => null);
    if (metadata?.end_session_endpoint) await this.manager.signoutRedirect();
  }

  onChange(listener: () => void): () => void {
    const events = this.manager.events;
    events.addUserLoaded(listener);
    events.addUserUnloaded(listener);
    events.addSilentRenewError(listener);
    return () => {
      events.removeUserLoaded(listener);
      events.removeUserUnloaded(listener);
      events.removeSilentRenewError(listener);
    };
  }
}
