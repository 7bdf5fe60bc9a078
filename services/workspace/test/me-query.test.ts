import { randomUUID } from 'node:crypto';
import type { Config } from '@wiki/config';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { prepareDatabase } from '@wiki/service';
import { cleanupConfig, countingStatements, isolatedConfig, UNUSED_IDP } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PREFERENCES, findUserWithPreferences, savePreferences } from '../src/db/preferences.js';
import { workspaceService } from '../src/service.js';

/** GET /users/me is one query: the user and their preferences (or the defaults) together. Real Postgres. */
let config: Config;
let pool: DatabasePool;

beforeAll(async () => {
  config = isolatedConfig(UNUSED_IDP);
  await prepareDatabase(workspaceService, config);
  pool = await createDatabasePool(config.databaseUrls.workspace);
});

afterAll(async () => {
  await pool?.end();
  if (config) await cleanupConfig(config);
});

const newUser = () =>
  pool.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO users (email, name) VALUES (${`${randomUUID()}@example.com`}, 'Me') RETURNING id`);

describe('findUserWithPreferences', () => {
  it('reads the user with the defaults, then with what they saved, one statement each; null for no user', async () => {
    const id = await newUser();
    const counted = countingStatements(pool);
    const fresh = await findUserWithPreferences(counted.db, id);
    expect(counted.count()).toBe(1);
    expect(fresh?.user).toMatchObject({ id, name: 'Me', status: 'active' });
    expect(fresh?.preference).toEqual(DEFAULT_PREFERENCES);

    const saved = await savePreferences(pool, id, { theme: 'dark', locale: 'de', notificationsEnabled: false });
    counted.reset();
    expect((await findUserWithPreferences(counted.db, id))?.preference).toEqual(saved);
    expect(saved).toMatchObject({ theme: 'dark', locale: 'de', notificationsEnabled: false, sidebarCollapsed: false });
    expect(counted.count()).toBe(1);

    expect(await findUserWithPreferences(pool, randomUUID())).toBeNull();
  });
});
