import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAuthSettings } from '@wiki/auth';
import { ConfigError, SERVICE_NAMES } from '@wiki/config';
import { describe, expect, it } from 'vitest';
import { DEFAULT_WEB_DIR, loadGatewaySettings } from './settings.js';

describe('gateway settings', () => {
  it('default to the dev identity provider, every service, no proxy, rate limits on, no CORS origin, web/dist', () => {
    expect(loadGatewaySettings({})).toEqual({
      auth: loadAuthSettings({}),
      services: [...SERVICE_NAMES],
      trustProxy: false,
      rateLimit: { enabled: true, userPerMin: 600, publicPerMin: 120, authFailuresPerMin: 20 },
      corsOrigins: [],
      webDir: DEFAULT_WEB_DIR,
    });
  });

  it("find the web app's build from the gateway package, not from the working folder", () => {
    const repository = fileURLToPath(new URL('../..', import.meta.url));
    expect(DEFAULT_WEB_DIR).toBe(join(repository, 'web', 'dist'));
    expect(loadGatewaySettings({ WEB_DIR: '/srv/wiki/web' }).webDir).toBe('/srv/wiki/web');
    expect(loadGatewaySettings({ WEB_DIR: 'build/web' }).webDir).toBe(resolve(process.cwd(), 'build/web'));
  });

  it('read the services, the proxies and the origins', () => {
    expect(loadGatewaySettings({ GATEWAY_SERVICES: ' workspace , mcp,workspace' }).services).toEqual([
      'workspace',
      'mcp',
    ]);
    expect(loadGatewaySettings({ GATEWAY_SERVICES: 'all' }).services).toEqual([...SERVICE_NAMES]);
    expect(loadGatewaySettings({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadGatewaySettings({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadGatewaySettings({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toBe('10.0.0.0/8, 127.0.0.1');
    expect(
      loadGatewaySettings({ CORS_ORIGINS: 'https://wiki.example.com, http://localhost:3000/' }).corsOrigins,
    ).toEqual(['https://wiki.example.com', 'http://localhost:3000']);
    expect(loadGatewaySettings({ RATE_LIMIT_ENABLED: 'false' }).rateLimit.enabled).toBe(false);
  });

  it('read the identity provider (libs/auth provider-settings.ts)', () => {
    const env = { AUTH_PROVIDER: 'oidc', AUTH_ISSUER: 'https://id.example.com/realms/wiki', AUTH_CLIENT_ID: 'wiki' };
    expect(loadGatewaySettings(env).auth).toMatchObject({ provider: 'oidc', clientId: 'wiki' });
    expect(loadGatewaySettings({}).auth.provider).toBe('dev');
  });

  it.each([
    ['GATEWAY_SERVICES', 'workspace,wiki'],
    ['TRUST_PROXY', 'yes please'],
    ['RATE_LIMIT_ENABLED', 'maybe'],
    ['RATE_LIMIT_USER_PER_MIN', '0'],
    ['RATE_LIMIT_PUBLIC_PER_MIN', 'many'],
    ['RATE_LIMIT_AUTH_FAILURES_PER_MIN', '0'],
    ['CORS_ORIGINS', 'https://wiki.example.com/app'],
    ['CORS_ORIGINS', '*'],
    ['AUTH_PROVIDER', 'keycloak'],
    ['AUTH_EMAIL_VERIFIED_DEFAULT', 'maybe'],
  ])('names the variable of a bad value: %s=%s', (name, value) => {
    expect(() => loadGatewaySettings({ [name]: value })).toThrow(ConfigError);
    expect(() => loadGatewaySettings({ [name]: value })).toThrow(name);
  });
});
