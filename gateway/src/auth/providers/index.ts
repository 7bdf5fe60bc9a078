import type { AuthSettings } from '@wiki/auth';
import { devProvider } from './dev.js';
import { firebaseProvider } from './firebase.js';
import { oidcProvider } from './oidc.js';
import type { TokenProvider } from './provider.js';

export { FIREBASE_JWKS_URL } from './firebase.js';
export type { TokenProvider } from './provider.js';

/**
 * The provider selected by AUTH_PROVIDER (loadAuthSettings has already checked its settings);
 * `dev` keeps its key pair in `dataDir`.
 */
export async function providerFor(auth: AuthSettings, dataDir: string): Promise<TokenProvider> {
  switch (auth.provider) {
    case 'dev':
      return devProvider(dataDir);
    case 'oidc':
      if (!auth.issuer || !auth.jwksUrl) throw new Error('AUTH_ISSUER and AUTH_JWKS_URL are required for oidc');
      return oidcProvider({
        issuer: auth.issuer,
        jwksUrl: auth.jwksUrl,
        audience: auth.audience,
        clientId: auth.clientId,
      });
    case 'firebase':
      if (!auth.firebaseProjectId) throw new Error('FIREBASE_PROJECT_ID is required for firebase');
      return firebaseProvider(auth.firebaseProjectId, auth.jwksUrl);
  }
}
