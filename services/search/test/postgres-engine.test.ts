import { randomUUID } from 'node:crypto';
import { databaseUrl, loadConfig } from '@wiki/config';
import {
  createDatabasePool,
  createPreparedPool,
  type DatabasePool,
  dropDatabase,
  ensureDatabase,
  migrate,
} from '@wiki/db';
import { migrationSetsOf } from '@wiki/service';
import { uniqueName } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresEngine } from '../src/engines/postgres.js';
import { searchService } from '../src/service.js';
import { describeEngineContract, type EngineUnderTest } from './engine-contract.js';

const pgUrl = loadConfig({ NODE_ENV: 'test', ...process.env }).pgUrl;

/** A throw-away database with the search service's migrations, and the Postgres engine over it. */
async function postgresEngine(tsConfig = 'simple'): Promise<EngineUnderTest & { pool: DatabasePool }> {
  const url = databaseUrl(pgUrl, `${uniqueName()}_search`);
  await ensureDatabase(url);
  await migrate(url, migrationSetsOf(searchService));
  const pool = await createDatabasePool(url, { maximumPoolSize: 4 });
  const reads = createPreparedPool(url, { warn() {} }, 2);
  const engine = await createPostgresEngine({ pool, reads, tsConfig });
  return {
    engine,
    pool,
    async cleanup() {
      await reads.end();
      await pool.end();
      await dropDatabase(url);
    },
  };
}

describeEngineContract('postgres', () => postgresEngine());

describe('postgres engine: SEARCH_TS_CONFIG', () => {
  let english: EngineUnderTest;
  let simple: EngineUnderTest;
  beforeAll(async () => {
    [english, simple] = await Promise.all([postgresEngine('english'), postgresEngine('simple')]);
  });
  afterAll(async () => {
    await english?.cleanup();
    await simple?.cleanup();
  });

  it("adds the configuration's stems beside the folded words (english: runs finds running)", async () => {
    const workspaceId = randomUUID();
    const doc = {
      id: randomUUID(),
      workspaceId,
      parentId: null,
      title: 'Training',
      icon: null,
      plainText: 'She was running every day.',
      archived: false,
      createdBy: null,
      updatedAt: Date.parse('2026-01-01T00:00:00Z'),
      version: 1,
    };
    await english.engine.upsert([doc]);
    await simple.engine.upsert([doc]);
    expect((await english.engine.search({ workspaceId, query: 'runs', limit: 5 })).hits.map((h) => h.id)).toEqual([
      doc.id,
    ]);
    expect((await simple.engine.search({ workspaceId, query: 'runs', limit: 5 })).hits).toEqual([]);
    // Stop words of the configuration do not empty a query: the folded words still match.
    expect((await english.engine.search({ workspaceId, query: 'every', limit: 5 })).hits.map((h) => h.id)).toEqual([
      doc.id,
    ]);
  });

  it('refuses a configuration the database does not have, naming the setting', async () => {
    const url = databaseUrl(pgUrl, `${uniqueName()}_search`);
    await ensureDatabase(url);
    const pool = await createDatabasePool(url, { maximumPoolSize: 1 });
    const reads = createPreparedPool(url, { warn() {} }, 1);
    try {
      await expect(createPostgresEngine({ pool, reads, tsConfig: 'klingon' })).rejects.toThrow(/SEARCH_TS_CONFIG/);
    } finally {
      await reads.end();
      await pool.end();
      await dropDatabase(url);
    }
  });
});
