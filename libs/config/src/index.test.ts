import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './index.js';

const dataDir = () => mkdtempSync(join(tmpdir(), 'cfg-'));
const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: dataDir(), ...env });

function errorOf(env: Record<string, string>): ConfigError {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('has defaults that run the stack locally', () => {
    const config = load({});
    expect(config.gatewayPort).toBe(8080);
    expect(config.ports.workspace).toBe(8081);
    expect(config.ports.mcp).toBe(8088);
    expect(config.urls.document).toBe('http://127.0.0.1:8082');
    expect(config.databaseUrls.workspace).toBe('postgres://postgres@127.0.0.1:5432/wiki_workspace');
    expect(config.natsUrl).toBe('nats://127.0.0.1:4222');
    expect(config.eventsStream).toBe('WIKI');
    expect(config.eventsPrefix).toBe('wiki');
  });

  it('keeps generated dev secrets stable across loads of the same data folder', () => {
    const dir = dataDir();
    const a = loadConfig({ DATA_DIR: dir });
    const b = loadConfig({ DATA_DIR: dir });
    expect(a.internalApiKey).toHaveLength(43);
    expect(a.internalApiKey).toBe(b.internalApiKey);
    expect(a.internalTokenSecret).toBe(b.internalTokenSecret);
    expect(a.internalApiKey).not.toBe(a.internalTokenSecret);
  });

  it('derives database names from DB_PREFIX and PG_URL, or takes an explicit URL', () => {
    const config = load({
      PG_URL: 'postgresql://app:secret@db.internal:6543/ignored',
      DB_PREFIX: 'acme',
      DOCUMENT_DATABASE_URL: 'postgres://other/documents',
    });
    expect(config.databaseUrls.workspace).toBe('postgresql://app:secret@db.internal:6543/acme_workspace');
    expect(config.databaseUrls.document).toBe('postgres://other/documents');
  });

  it('keeps the environment it read: each part reads its own settings there', () => {
    const config = load({ SEARCH_ENGINE: 'elasticsearch' });
    expect(config.env.SEARCH_ENGINE).toBe('elasticsearch');
    expect(Object.isFrozen(config.env)).toBe(true);
  });

  it('reads no identity provider settings: only the gateway does (libs/auth provider-settings.ts)', () => {
    const config = load({ AUTH_PROVIDER: 'keycloak', AUTH_ISSUER: 'not a url' });
    expect(config).not.toHaveProperty('auth');
    expect(config.env.AUTH_PROVIDER).toBe('keycloak');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DOCUMENT_PORT: '-1' }, 'DOCUMENT_PORT'],
    [{ PG_URL: 'mysql://x' }, 'PG_URL'],
    [{ NATS_URL: 'not a url' }, 'NATS_URL'],
    [{ DB_PREFIX: 'Bad-Prefix' }, 'DB_PREFIX'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ INTERNAL_API_KEY: 'short' }, 'INTERNAL_API_KEY'],
  ])('names the variable of a bad value: %o', (env, variable) => {
    const error = errorOf(env as Record<string, string>);
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(variable);
  });

  it('refuses generated secrets in production', () => {
    expect(errorOf({ NODE_ENV: 'production' }).variable).toBe('INTERNAL_API_KEY');
  });

  it('never puts a database password into an error', () => {
    const error = errorOf({ PG_URL: 'http://user:hunter2@host/db' });
    expect(error.message).not.toContain('hunter2');
  });
});
