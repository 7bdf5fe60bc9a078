import { loadAuthSettings } from '@wiki/auth';
import { describe, expect, it } from 'vitest';
import { browserAuthConfig, browserSignInOpenApi, devSignInOpen } from './browser-sign-in.js';

describe('browser sign-in', () => {
  it('opens the dev form only under the dev provider and never in production', () => {
    expect(devSignInOpen({ provider: 'dev' }, false)).toBe(true);
    expect(devSignInOpen({ provider: 'dev' }, true)).toBe(false);
    expect(devSignInOpen({ provider: 'oidc' }, false)).toBe(false);
    expect(devSignInOpen({ provider: 'firebase' }, false)).toBe(false);
    expect(Object.keys(browserSignInOpenApi({ provider: 'dev' }, true))).toEqual(['/auth/config']);
    expect(Object.keys(browserSignInOpenApi({ provider: 'dev' }, false))).toEqual([
      '/auth/config',
      '/auth/dev/sign-in',
    ]);
  });

  it('tells the browser the issuer and public client under OIDC, the provider alone otherwise', () => {
    const oidc = loadAuthSettings({
      AUTH_PROVIDER: 'oidc',
      AUTH_ISSUER: 'https://id.example.com/realms/wiki',
      AUTH_CLIENT_ID: 'wiki-web',
      AUTH_JWKS_URL: 'https://id.example.com/certs',
    });
    expect(browserAuthConfig(oidc)).toEqual({
      provider: 'oidc',
      issuer: 'https://id.example.com/realms/wiki',
      clientId: 'wiki-web',
      scope: 'openid profile email',
    });
    const audienceOnly = loadAuthSettings({
      AUTH_PROVIDER: 'oidc',
      AUTH_ISSUER: 'https://id.example.com/realms/wiki',
      AUTH_AUDIENCE: 'wiki-api',
    });
    expect(browserAuthConfig(audienceOnly)).not.toHaveProperty('clientId');
    expect(browserAuthConfig(loadAuthSettings({ AUTH_PROVIDER: 'firebase', FIREBASE_PROJECT_ID: 'p' }))).toEqual({
      provider: 'firebase',
      scope: 'openid profile email',
    });
  });
});
