import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Issue 25, point 5: a part's own settings (its settings.ts) are read before it opens anything, so a
 * bad value stops it as a bad shared one does: exit 78 (EX_CONFIG), the variable named on stderr.
 * Runs the compiled mains (the build `npm test` runs first).
 */
describe('a part started with a bad setting of its own', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'bad-settings-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it.each([
    ['services/search/dist/main.js', { SEARCH_ENGINE: 'solr' }, 'SEARCH_ENGINE must be one of postgres, elasticsearch'],
    ['services/attachment/dist/main.js', { STORAGE_DRIVER: 's3' }, 'S3_ENDPOINT is required when STORAGE_DRIVER=s3'],
    ['services/workspace/dist/main.js', { INVITATION_TTL_DAYS: '0' }, 'INVITATION_TTL_DAYS must be between 1 and 365'],
    [
      'services/notification/dist/main.js',
      { NOTIFICATION_HEARTBEAT_MS: '1' },
      'NOTIFICATION_HEARTBEAT_MS must be between 10',
    ],
    ['services/mcp/dist/main.js', { MCP_SESSIONS_PER_KEY: 'many' }, 'MCP_SESSIONS_PER_KEY must be a whole number'],
    ['services/collab/dist/main.js', { COLLAB_UPDATES_BURST: '0' }, 'COLLAB_UPDATES_BURST must be between 1'],
    ['services/export/dist/main.js', { EXPORT_ROLE: 'boss' }, 'EXPORT_ROLE must be one of api, worker, both'],
    ['gateway/dist/main.js', { TRUST_PROXY: 'yes please' }, 'TRUST_PROXY must be true, false, a hop count'],
    // The identity provider is the gateway's own setting (libs/auth provider-settings.ts).
    ['gateway/dist/main.js', { AUTH_PROVIDER: 'keycloak' }, 'AUTH_PROVIDER must be one of dev, oidc, firebase'],
    ['gateway/dist/main.js', { AUTH_PROVIDER: 'oidc' }, 'AUTH_ISSUER is required when AUTH_PROVIDER=oidc'],
  ])('%s exits 78 naming it (%o)', (main, env, message) => {
    const run = spawnSync(process.execPath, [join(root, main)], {
      env: { PATH: process.env.PATH, NODE_ENV: 'test', DATA_DIR: dataDir, ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.stderr).toContain(`Invalid configuration: ${message}`);
    expect(run.status).toBe(78);
  });
});

/**
 * `npm start` reads the gateway's identity provider settings itself before it starts anything (no
 * database, NATS or Redis is touched, no part is spawned): a bad one stops it at once, named.
 */
describe('npm start with bad identity provider settings', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'bad-auth-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it.each([
    [{ AUTH_PROVIDER: 'keycloak' }, 'AUTH_PROVIDER must be one of dev, oidc, firebase, got "keycloak"'],
    [{ AUTH_PROVIDER: 'firebase' }, 'FIREBASE_PROJECT_ID is required when AUTH_PROVIDER=firebase'],
    [
      { AUTH_PROVIDER: 'oidc', AUTH_ISSUER: 'https://id.example.com/realms/wiki' },
      'AUTH_AUDIENCE or AUTH_CLIENT_ID is required when AUTH_PROVIDER=oidc',
    ],
  ])('exits 78 naming the variable (%o)', (env, message) => {
    const run = spawnSync(process.execPath, [join(root, 'scripts/start.mjs'), '--no-build'], {
      env: { PATH: process.env.PATH, NODE_ENV: 'test', DATA_DIR: dataDir, ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.stderr).toContain(`Invalid configuration: ${message}`);
    expect(run.stderr).not.toContain('Found:');
    expect(run.status).toBe(78);
  });
});
