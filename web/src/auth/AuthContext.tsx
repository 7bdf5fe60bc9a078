import { createContext, type ReactNode, useContext, useEffect, useMemo, useState } from 'react';
import { ApiClient } from '../api/client';
import type { AuthConfig } from '../api/types';
import { DevSession } from './dev-session';
import { OidcSession } from './oidc-session';
import { loadAuthConfig, type Session } from './session';

interface Auth {
  config: AuthConfig;
  session: Session;
  api: ApiClient;
  /** Whether a token is at hand (re-read when the session changes). */
  signedIn: boolean;
}

const AuthContext = createContext<Auth | null>(null);

function sessionFor(config: AuthConfig): Session {
  if (config.provider === 'dev') return new DevSession();
  if (config.provider === 'oidc') return new OidcSession(config);
  throw new Error(`Signing in with "${config.provider}" in the browser is not supported; use an OIDC provider.`);
}

/** Set once a refused token has sent the person to sign in again (the page is leaving). */
let reauthenticating = false;

function currentPath(): string {
  return `${window.location.pathname}${window.location.search}${window.location.hash}`;
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<{ config: AuthConfig; session: Session } | { error: string } | null>(null);
  const [signedIn, setSignedIn] = useState(false);

  useEffect(() => {
    loadAuthConfig()
      .then((config) => setState({ config, session: sessionFor(config) }))
      .catch((error: Error) => setState({ error: error.message }));
  }, []);

  const session = state && 'session' in state ? state.session : null;
  useEffect(() => {
    if (!session) return;
    const refresh = () => session.accessToken().then((token) => setSignedIn(token !== null));
    refresh();
    return session.onChange(refresh);
  }, [session]);

  const value = useMemo<Auth | null>(() => {
    if (!state || !('session' in state)) return null;
    const { config, session } = state;
    const api = new ApiClient({
      accessToken: () => session.accessToken(),
      onUnauthorized: () => {
        // The token was refused (expired, revoked): sign in again and come back here, once
        // however many requests were refused together.
        if (reauthenticating) return;
        reauthenticating = true;
        void session.signInAgain(currentPath());
      },
    });
    return { config, session, api, signedIn };
  }, [state, signedIn]);

  if (state && 'error' in state) {
    return (
      <main className="centered-page">
        <h1>The wiki cannot start</h1>
        <p role="alert">{state.error}</p>
      </main>
    );
  }
  if (!value) return <p className="loading">Loading…</p>;
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}

export function useApi(): ApiClient {
  return useAuth().api;
}
