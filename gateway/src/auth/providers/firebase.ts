import { createRemoteJWKSet } from 'jose';
import { REMOTE_JWKS_OPTIONS, type TokenProvider } from './provider.js';

/** Google's published keys for Firebase ID tokens, in JWK form. */
export const FIREBASE_JWKS_URL =
  'https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com';

/**
 * A hosted provider (Firebase Authentication): ID tokens are issued by
 * `https://securetoken.google.com/<projectId>` for the audience `<projectId>`. `AUTH_JWKS_URL`
 * replaces Google's key set (tests run a local one).
 */
export function firebaseProvider(projectId: string, jwksUrl?: string): TokenProvider {
  return {
    name: 'firebase',
    keys: createRemoteJWKSet(new URL(jwksUrl ?? FIREBASE_JWKS_URL), REMOTE_JWKS_OPTIONS),
    issuer: `https://securetoken.google.com/${projectId}`,
    audience: projectId,
    roles: () => [],
  };
}
