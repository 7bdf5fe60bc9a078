import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './index.js';

const oidc = { AUTH_PROVIDER: 'oidc', AUTH_ISSUER: 'https://id.example.com/realms/wiki' };
const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'cfg-')), ...env });

describe('the OIDC audience', () => {
  it('stops start-up in oidc mode without AUTH_AUDIENCE or AUTH_CLIENT_ID, naming both', () => {
    let error: unknown;
    try {
      load(oidc);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain('AUTH_AUDIENCE');
    expect((error as ConfigError).message).toContain('AUTH_CLIENT_ID');
    // An empty value is no value.
    expect(() => load({ ...oidc, AUTH_AUDIENCE: '', AUTH_CLIENT_ID: '' })).toThrow(ConfigError);
  });

  it('takes either variable', () => {
    expect(load({ ...oidc, AUTH_AUDIENCE: 'wiki-api' }).auth.audience).toBe('wiki-api');
    expect(load({ ...oidc, AUTH_CLIENT_ID: 'wiki-web' }).auth.clientId).toBe('wiki-web');
  });

  it('is not asked of the other providers', () => {
    expect(load({}).auth.provider).toBe('dev');
    expect(load({ AUTH_PROVIDER: 'firebase', FIREBASE_PROJECT_ID: 'p' }).auth.provider).toBe('firebase');
  });
});
