import { freePort } from '@wiki/testing';
import { type PrivatePostgres, startPrivatePostgres } from '../../../scripts/lib/private-postgres.js';
import { createDatabasePool, type DatabasePool, sql } from '../src/index.js';

/**
 * The shared pool after Postgres crashed under it (recovering-driver.ts): with slonik's own pg
 * driver, each connection cut in the middle of a query stayed "pending destroy" in the pool for
 * good, so once all of them had been busy at the crash the pool never served a query again.
 */
let server: PrivatePostgres;
let pool: DatabasePool | undefined;

beforeAll(async () => {
  server = startPrivatePostgres(await freePort(), 20);
});
afterAll(async () => {
  await pool?.end().catch(() => undefined);
  server?.stop();
});

/** The query's rows, or 'no answer' when none came within `ms` (a pool waiting for ever). */
function answerWithin(query: Promise<{ rows: readonly unknown[] }>, ms: number) {
  return Promise.race([
    query.then((result) => result.rows),
    new Promise((resolve) => setTimeout(resolve, ms, 'no answer')),
  ]);
}

it('serves again once Postgres is back after crashing while every connection ran a query', async () => {
  pool = await createDatabasePool(`${server.url}/postgres`, { maximumPoolSize: 2 });
  const busy = [1, 2].map(() => pool!.query(sql.unsafe`SELECT pg_sleep(30)`).catch((error: Error) => error));
  while (pool.state().acquiredConnections < 2) await new Promise((resolve) => setTimeout(resolve, 20));
  await new Promise((resolve) => setTimeout(resolve, 100)); // both queries are on the server

  await server.halt('immediate');
  for (const outcome of await Promise.all(busy)) {
    expect((outcome as Error).constructor.name).toBe('BackendTerminatedUnexpectedlyError');
  }
  await server.resume();

  expect(await answerWithin(pool.query(sql.unsafe`SELECT 1 AS one`), 10_000)).toEqual([{ one: 1 }]);
  expect(pool.state()).toMatchObject({ pendingDestroyConnections: 0, waitingClients: 0 });
});
