import { databaseUrl } from '@wiki/config';
import { type ClosableReads, createPreparedPool, dropDatabase, ensureDatabase, preparedReads } from '@wiki/db';
import { uniqueName } from '@wiki/testing';

const server = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432';

interface SumReads extends ClosableReads {
  sum(a: number, b: number): Promise<number>;
}

const createSumReads = preparedReads<SumReads>((run) => ({
  async sum(a, b) {
    const [row] = await run<{ sum: number }>({ name: 'test_sum_v1', text: 'SELECT $1::int + $2::int AS sum' }, [a, b]);
    return row?.sum ?? 0;
  },
}));

describe('preparedReads', () => {
  const url = databaseUrl(server, `${uniqueName()}_db`);
  const warnings: object[] = [];
  let reads: SumReads;

  beforeAll(async () => {
    await ensureDatabase(url);
    reads = createSumReads(url, { warn: (obj) => warnings.push(obj) }, 2);
  });
  afterAll(async () => {
    await reads?.end();
    await dropDatabase(url);
  });

  it('runs a named statement with its values, again on the same connections', async () => {
    expect(await Promise.all([reads.sum(1, 2), reads.sum(40, 2), reads.sum(3, 4)])).toEqual([3, 42, 7]);
    expect(warnings).toEqual([]);
  });

  it('opens every connection of a prepared pool with the session settings it was given', async () => {
    const pool = createPreparedPool(url, { warn() {} }, 2, { plan_cache_mode: 'force_generic_plan', work_mem: '8MB' });
    try {
      const shown = await Promise.all(
        [0, 1, 2].map(async () => (await pool.query('SELECT current_setting($1) AS v', ['plan_cache_mode'])).rows[0].v),
      );
      expect(shown).toEqual(['force_generic_plan', 'force_generic_plan', 'force_generic_plan']);
      expect((await pool.query('SHOW work_mem')).rows[0].work_mem).toBe('8MB');
    } finally {
      await pool.end();
    }
    // Without settings, the server's default.
    const plain = createPreparedPool(url, { warn() {} }, 1);
    try {
      expect((await plain.query('SHOW plan_cache_mode')).rows[0].plan_cache_mode).toBe('auto');
    } finally {
      await plain.end();
    }
  });
});
