import { UserManager, WebStorageStateStore } from 'oidc-client-ts';
import type { AuthConfig } from '../api/types';
import { type Session, safeReturnTo } from './session';

/**
 * AUTH_PROVIDER=oidc: Authorization Code + PKCE as the public client AUTH_CLIENT_ID against the
 * issuer's discovery document, redirect on /auth/callback (ARCHITECTURE 5.17). Silent renewal
 * before the token expires: with the refresh token when the provider gave one, else in a hidden
 * frame on /auth/callback. The user (tokens) stays in sessionStorage: it ends with the tab, and a
 * reload keeps it.
 */
export class OidcSession implements Session {
  readonly provider = 'oidc' as const;
  private readonly manager: UserManager;
  /**
   * Set while the page is on its way to the provider (signing out or in again): removing the user
   * then is not news to act on, or the app would start a sign-in racing the redirect.
   */
  private leaving = false;

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

  async completeSignIn(): Promise<string | null> {
    // One callback page for the redirect and for the silent renewal's frame (which gets no user).
    const user = await this.manager.signinCallback();
    if (!user) return null;
    const state = user.state as { returnTo?: string } | undefined;
    return safeReturnTo(state?.returnTo);
  }

  async signInAgain(returnTo: string): Promise<void> {
    // The provider's session usually still stands, so the person comes straight back.
    this.leaving = true;
    await this.manager.removeUser();
    await this.signIn(returnTo);
  }

  async signOut(): Promise<void> {
    this.leaving = true;
    // The provider's end-session endpoint when it has one; otherwise signing out here is enough.
    const metadata = await this.manager.metadataService.getMetadata().catch(() => null);
    if (metadata?.end_session_endpoint) {
      // signoutRedirect reads the id token (its hint) before removing the user.
      await this.manager.signoutRedirect();
      return;
    }
    await this.manager.removeUser();
    window.location.assign('/');
  }

  onChange(listener: () => void): () => void {
    const events = this.manager.events;
    const changed = () => {
      if (!this.leaving) listener();
    };
    events.addUserLoaded(changed);
    events.addUserUnloaded(changed);
    events.addSilentRenewError(changed);
    events.addAccessTokenExpired(changed);
    return () => {
      events.removeUserLoaded(changed);
      events.removeUserUnloaded(changed);
      events.removeSilentRenewError(changed);
      events.removeAccessTokenExpired(changed);
    };
  }
}
