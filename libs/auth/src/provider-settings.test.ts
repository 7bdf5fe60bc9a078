import { ConfigError } from '@wiki/config';
import { loadAuthSettings } from './provider-settings.js';

const oidc = { AUTH_PROVIDER: 'oidc', AUTH_ISSUER: 'https://id.example.com/realms/wiki' };

function errorOf(env: Record<string, string>): ConfigError {
  try {
    loadAuthSettings(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadAuthSettings', () => {
  it('defaults to the dev provider, emails unverified without the claim', () => {
    expect(loadAuthSettings({})).toEqual({
      provider: 'dev',
      issuer: undefined,
      jwksUrl: undefined,
      audience: undefined,
      clientId: undefined,
      firebaseProjectId: undefined,
      emailVerifiedDefault: false,
    });
    expect(loadAuthSettings({ AUTH_EMAIL_VERIFIED_DEFAULT: 'true' }).emailVerifiedDefault).toBe(true);
  });

  it('derives the OIDC JWKS URL from the issuer, unless AUTH_JWKS_URL is set', () => {
    const derived = loadAuthSettings({ ...oidc, AUTH_ISSUER: `${oidc.AUTH_ISSUER}/`, AUTH_CLIENT_ID: 'wiki' });
    expect(derived.jwksUrl).toBe('https://id.example.com/realms/wiki/protocol/openid-connect/certs');
    const given = loadAuthSettings({ ...oidc, AUTH_CLIENT_ID: 'wiki', AUTH_JWKS_URL: 'https://keys.example.com/jwks' });
    expect(given.jwksUrl).toBe('https://keys.example.com/jwks');
  });

  it('reads firebase with its project, and no JWKS URL unless given', () => {
    expect(loadAuthSettings({ AUTH_PROVIDER: 'firebase', FIREBASE_PROJECT_ID: 'p' })).toMatchObject({
      provider: 'firebase',
      firebaseProjectId: 'p',
      jwksUrl: undefined,
    });
  });

  it.each([
    [{ AUTH_PROVIDER: 'keycloak' }, 'AUTH_PROVIDER', 'must be one of dev, oidc, firebase'],
    [{ AUTH_PROVIDER: 'oidc' }, 'AUTH_ISSUER', 'is required when AUTH_PROVIDER=oidc'],
    [{ ...oidc, AUTH_ISSUER: 'ftp://id.example.com' }, 'AUTH_ISSUER', ''],
    [{ ...oidc, AUTH_CLIENT_ID: 'wiki', AUTH_JWKS_URL: 'not a url' }, 'AUTH_JWKS_URL', ''],
    [{ AUTH_PROVIDER: 'firebase' }, 'FIREBASE_PROJECT_ID', 'is required when AUTH_PROVIDER=firebase'],
    [{ AUTH_EMAIL_VERIFIED_DEFAULT: 'maybe' }, 'AUTH_EMAIL_VERIFIED_DEFAULT', 'must be true or false'],
  ])('names the variable of a bad value: %o', (env, variable, message) => {
    const error = errorOf(env as Record<string, string>);
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(`Invalid configuration: ${variable} ${message}`);
  });

  it('refuses the dev provider in production, explicit or by default', () => {
    const production: Record<string, string>[] = [
      { NODE_ENV: 'production' },
      { NODE_ENV: 'production', AUTH_PROVIDER: 'dev' },
    ];
    for (const env of production) {
      const error = errorOf(env);
      expect(error.variable).toBe('AUTH_PROVIDER');
      expect(error.message).toContain('dev is refused when NODE_ENV=production');
    }
    expect(loadAuthSettings({ NODE_ENV: 'production', ...oidc, AUTH_CLIENT_ID: 'wiki' }).provider).toBe('oidc');
    expect(loadAuthSettings({ NODE_ENV: 'test' }).provider).toBe('dev');
  });
});

describe('the OIDC audience', () => {
  it('stops start-up in oidc mode without AUTH_AUDIENCE or AUTH_CLIENT_ID, naming both', () => {
    const error = errorOf(oidc);
    expect(error.variable).toBe('AUTH_AUDIENCE');
    expect(error.message).toContain('AUTH_AUDIENCE');
    expect(error.message).toContain('AUTH_CLIENT_ID');
    // An empty value is no value.
    expect(errorOf({ ...oidc, AUTH_AUDIENCE: '', AUTH_CLIENT_ID: '' }).variable).toBe('AUTH_AUDIENCE');
  });

  it('takes either variable', () => {
    expect(loadAuthSettings({ ...oidc, AUTH_AUDIENCE: 'wiki-api' }).audience).toBe('wiki-api');
    expect(loadAuthSettings({ ...oidc, AUTH_CLIENT_ID: 'wiki-web' }).clientId).toBe('wiki-web');
  });

  it('is not asked of the other providers', () => {
    expect(loadAuthSettings({}).provider).toBe('dev');
    expect(loadAuthSettings({ AUTH_PROVIDER: 'firebase', FIREBASE_PROJECT_ID: 'p' }).provider).toBe('firebase');
  });
});
