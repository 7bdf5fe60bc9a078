import { ConfigError, type Env, flag, isProduction, oneOf, readEnv, text, url } from '@wiki/config';

export const AUTH_PROVIDERS = ['dev', 'oidc', 'firebase'] as const;
export type AuthProvider = (typeof AUTH_PROVIDERS)[number];

/**
 * Who issues the access tokens the gateway accepts (AUTH_*, FIREBASE_PROJECT_ID). Only the
 * gateway's identity code and the token scripts read these: the services trust the gateway's
 * signed identity instead.
 */
export interface AuthSettings {
  provider: AuthProvider;
  issuer?: string;
  jwksUrl?: string;
  audience?: string;
  clientId?: string;
  firebaseProjectId?: string;
  /**
   * Whether an email counts as verified when the provider's token has no `email_verified`
   * claim (a `false` claim is never overridden; `dev` tokens are always verified).
   */
  emailVerifiedDefault: boolean;
}

const HTTP = ['http:', 'https:'];

/** Reads the identity provider's settings; a bad or missing value throws a ConfigError naming it. */
export function loadAuthSettings(env: Env): AuthSettings {
  const read = readEnv(env, {
    AUTH_PROVIDER: oneOf(AUTH_PROVIDERS, 'dev'),
    AUTH_ISSUER: url(HTTP),
    FIREBASE_PROJECT_ID: text(),
    AUTH_AUDIENCE: text(),
    AUTH_CLIENT_ID: text(),
    AUTH_EMAIL_VERIFIED_DEFAULT: flag(false),
  });
  const provider = read.AUTH_PROVIDER;
  const issuer = read.AUTH_ISSUER;
  if (provider === 'dev' && isProduction(env)) {
    throw new ConfigError('AUTH_PROVIDER', 'dev is refused when NODE_ENV=production (use oidc or firebase)');
  }
  if (provider === 'oidc' && !issuer) throw new ConfigError('AUTH_ISSUER', 'is required when AUTH_PROVIDER=oidc');
  // Without an audience, a token the realm issued to any other client would be accepted.
  if (provider === 'oidc' && !read.AUTH_AUDIENCE && !read.AUTH_CLIENT_ID) {
    throw new ConfigError('AUTH_AUDIENCE', 'or AUTH_CLIENT_ID is required when AUTH_PROVIDER=oidc');
  }
  if (provider === 'firebase' && !read.FIREBASE_PROJECT_ID) {
    throw new ConfigError('FIREBASE_PROJECT_ID', 'is required when AUTH_PROVIDER=firebase');
  }
  const { AUTH_JWKS_URL: jwksUrl } = readEnv(env, {
    AUTH_JWKS_URL: url(HTTP, provider === 'oidc' && issuer ? `${issuer}/protocol/openid-connect/certs` : undefined),
  });
  return {
    provider,
    issuer,
    jwksUrl,
    audience: read.AUTH_AUDIENCE,
    clientId: read.AUTH_CLIENT_ID,
    firebaseProjectId: read.FIREBASE_PROJECT_ID,
    emailVerifiedDefault: read.AUTH_EMAIL_VERIFIED_DEFAULT,
  };
}
