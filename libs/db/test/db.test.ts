import { fileURLToPath } from 'node:url';
import { databaseUrl } from '@wiki/config';
import { createDatabasePool, type DatabasePool, dropDatabase, ensureDatabase, migrate, sql, z } from '@wiki/db';
import { uniqueName } from '@wiki/testing';

const server = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const migrations = { dir: fileURLToPath(new URL('./migrations', import.meta.url)), table: 'pgmigrations' };

describe('database helpers', () => {
  const url = databaseUrl(server, `${uniqueName()}_db`);
  let pool: DatabasePool;

  beforeAll(async () => {
    expect(await ensureDatabase(url)).toBe(true);
    pool = await createDatabasePool(url);
  });
  afterAll(async () => {
    await pool?.end();
    await dropDatabase(url);
  });

  it('creates a database once', async () => {
    expect(await ensureDatabase(url)).toBe(false);
  });

  it('applies migrations once, also when replicas migrate at the same time', async () => {
    const runs = await Promise.all([
      migrate(url, [migrations]),
      migrate(url, [migrations]),
      migrate(url, [migrations]),
    ]);
    expect(runs.flat()).toEqual(['0001_things']);
    expect(await migrate(url, [migrations])).toEqual([]);
    const applied = await pool.oneFirst(
      sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM pgmigrations`,
    );
    expect(applied).toBe(1);
  });

  it('returns timestamps as ISO strings and bigints as numbers', async () => {
    const row = await pool.one(
      sql.type(z.object({ id: z.string().uuid(), made_at: z.string(), big: z.number() }))`
        INSERT INTO things (name, made_at) VALUES ('lamp', '2026-01-02T03:04:05.678+01:00') RETURNING id, made_at, big`,
    );
    expect(row.made_at).toBe('2026-01-02T02:04:05.678Z');
    expect(row.big).toBe(9007199254740);
  });

  it('validates typed rows against their schema', async () => {
    await expect(pool.one(sql.type(z.object({ name: z.number() }))`SELECT name FROM things LIMIT 1`)).rejects.toThrow();
  });

  it('rolls a failed transaction back', async () => {
    await expect(
      pool.transaction(async (tx) => {
        await tx.query(sql.unsafe`INSERT INTO things (name) VALUES ('chair')`);
        await tx.query(sql.unsafe`INSERT INTO things (name) VALUES ('lamp')`);
      }),
    ).rejects.toThrow();
    const names = await pool.anyFirst(sql.type(z.object({ name: z.string() }))`SELECT name FROM things ORDER BY name`);
    expect(names).toEqual(['lamp']);
  });
});
