import { databaseUrl } from '@wiki/config';
import { type ClosableReads, dropDatabase, ensureDatabase, preparedReads } from '@wiki/db';
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
});
