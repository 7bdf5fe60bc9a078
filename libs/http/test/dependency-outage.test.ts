import { createServer, request as httpRequest } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { Writable } from 'node:stream';
import { Client } from '@elastic/elasticsearch';
import { connect as connectNats } from '@nats-io/transport-node';
import { createDatabasePool, sql } from '@wiki/db';
import { freePort } from '@wiki/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { type PrivatePostgres, startPrivatePostgres } from '../../../scripts/lib/private-postgres.js';
import { type PrivateServer, startPrivateRedis } from '../../../scripts/lib/private-servers.js';
import { createApp } from '../src/app.js';
import { dependencyOutage, nameDependency } from '../src/outage.js';

/**
 * The one classifier of "a dependency is unreachable" (libs/http outage.ts), on errors provoked for
 * real from the clients the services use: node-postgres and slonik against a private Postgres that
 * is stopped, crashed and refused; ioredis against a private Redis that is killed; the NATS client.
 * Then the error handler: such a failure is a 503 with Retry-After, logged as a warning.
 */

/** What a promise rejected with (fails the test when it resolved). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

const closedPort = () => freePort();
const sleepQuery = 'SELECT pg_sleep(30)';
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Postgres unreachable', () => {
  let server: PrivatePostgres;
  let url: string;

  beforeAll(async () => {
    server = startPrivatePostgres(await freePort(), 12);
    url = `${server.url}/postgres`;
  });
  afterAll(() => server?.stop());

  /** Starts `sleepQuery` on a node-postgres pool and on a slonik pool; resolves once both run. */
  async function sleepingOnBoth() {
    const plain = new pg.Pool({ connectionString: url });
    plain.on('error', () => undefined);
    const slonik = await createDatabasePool(url);
    const plainQuery = rejection(plain.query(sleepQuery));
    const slonikQuery = rejection(slonik.query(sql.unsafe`SELECT pg_sleep(30)`));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      for (;;) {
        const { rows } = await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1`, [
          sleepQuery,
        ]);
        if (rows[0].n >= 2) break;
        await pause(20);
      }
    } finally {
      await admin.end();
    }
    const end = async () => {
      await plain.end().catch(() => undefined);
      await slonik.end().catch(() => undefined);
    };
    return { plain, slonik, plainQuery, slonikQuery, end };
  }

  it('a refused connection: node-postgres and slonik, named as postgres once its address is known', async () => {
    const port = await closedPort();
    const closedUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const plain = new pg.Pool({ connectionString: closedUrl });
    const refused = await rejection(plain.query('SELECT 1'));
    await plain.end();
    expect(dependencyOutage(refused)).toEqual({ dependency: `127.0.0.1:${port}`, reason: 'ECONNREFUSED' });
    nameDependency(closedUrl, 'postgres');
    expect(dependencyOutage(refused)).toEqual({ dependency: 'postgres', reason: 'ECONNREFUSED' });
    // slonik asks the server for its types when the pool is made: the same refusal.
    expect(dependencyOutage(await rejection(createDatabasePool(closedUrl)))).toMatchObject({ dependency: 'postgres' });
  });

  it('a backend ended by pg_terminate_backend (57P01)', async () => {
    const both = await sleepingOnBoth();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1', [sleepQuery]);
    await admin.end();
    const plainError = await both.plainQuery;
    const slonikError = await both.slonikQuery;
    await both.end();
    expect(plainError).toMatchObject({ code: '57P01' });
    expect(dependencyOutage(plainError)).toEqual({ dependency: 'postgres', reason: 'SQLSTATE 57P01' });
    expect((slonikError as Error).constructor.name).toBe('BackendTerminatedError');
    expect(dependencyOutage(slonikError)).toEqual({ dependency: 'postgres', reason: 'BackendTerminatedError' });
  });

  it('a server stopped (fast shutdown) during a query, then refusing: 57P01, then ConnectionError', async () => {
    const both = await sleepingOnBoth();
    await server.halt('fast');
    try {
      expect(dependencyOutage(await both.plainQuery)).toEqual({ dependency: 'postgres', reason: 'SQLSTATE 57P01' });
      expect(dependencyOutage(await both.slonikQuery)).toMatchObject({ dependency: 'postgres' });
      const plainLater = await rejection(both.plain.query('SELECT 1'));
      const slonikLater = await rejection(both.slonik.query(sql.unsafe`SELECT 1`));
      expect(plainLater).toMatchObject({ code: 'ECONNREFUSED', syscall: 'connect' });
      expect(dependencyOutage(plainLater)?.reason).toBe('ECONNREFUSED');
      expect((slonikLater as Error).constructor.name).toBe('ConnectionError');
      expect(dependencyOutage(slonikLater)).toEqual({ dependency: 'postgres', reason: 'ConnectionError' });
    } finally {
      await server.resume();
      await both.end();
    }
  });

  it('a server that crashed (immediate shutdown) during a query: the connection terminated unexpectedly', async () => {
    const both = await sleepingOnBoth();
    await server.halt('immediate');
    try {
      const plainError = await both.plainQuery;
      const slonikError = await both.slonikQuery;
      expect((plainError as Error).message).toBe('Connection terminated unexpectedly');
      expect(dependencyOutage(plainError)).toEqual({
        dependency: 'postgres',
        reason: 'Connection terminated unexpectedly',
      });
      expect((slonikError as Error).constructor.name).toBe('BackendTerminatedUnexpectedlyError');
      expect(dependencyOutage(slonikError)).toMatchObject({ dependency: 'postgres' });
    } finally {
      await server.resume();
      await both.end();
    }
  });

  it('a server shutting down refuses new sessions (57P03)', async () => {
    const held = new pg.Client({ connectionString: url });
    held.on('error', () => undefined);
    await held.connect();
    await server.halt('smart', { wait: false }); // waits for `held` to end
    try {
      let refusal: unknown;
      for (let attempt = 0; attempt < 100 && !refusal; attempt++) {
        const late = new pg.Client({ connectionString: url });
        late.on('error', () => undefined);
        refusal = await late.connect().then(
          () => late.end().then(() => pause(20)),
          (error: unknown) => error,
        );
      }
      expect(refusal).toMatchObject({ code: '57P03' });
      expect(dependencyOutage(refusal)).toEqual({ dependency: 'postgres', reason: 'SQLSTATE 57P03' });
    } finally {
      await held.end();
      // The smart shutdown ends once `held` is gone.
      for (let i = 0; i < 200; i++) {
        const probe = new pg.Client({ connectionString: url });
        probe.on('error', () => undefined);
        const refused = await probe.connect().then(
          () => probe.end().then(() => false),
          (error: { code?: string }) => error.code === 'ECONNREFUSED',
        );
        if (refused) break;
        await pause(50);
      }
      await server.resume();
    }
  });

  it('no free connection: a pool that waited too long, a server out of slots (53300), a pool already ended', async () => {
    const one = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 200 });
    const busy = await one.connect();
    const waited = await rejection(one.query('SELECT 1'));
    busy.release();
    await one.end();
    expect((waited as Error).message).toBe('timeout exceeded when trying to connect');
    expect(dependencyOutage(waited)).toMatchObject({ dependency: 'postgres' });
    expect(dependencyOutage(await rejection(one.query('SELECT 1')))).toMatchObject({ dependency: 'postgres' });

    const clients: pg.Client[] = [];
    let full: unknown;
    try {
      for (let i = 0; i < 20 && !full; i++) {
        const client = new pg.Client({ connectionString: url });
        client.on('error', () => undefined);
        full = await client.connect().then(
          () => void clients.push(client),
          (error: unknown) => error,
        );
      }
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
    expect(full).toMatchObject({ code: '53300' });
    expect(dependencyOutage(full)).toEqual({ dependency: 'postgres', reason: 'SQLSTATE 53300' });
  });

  it('is not fooled by the errors that are the request or the code: constraint, syntax, bad input', async () => {
    const pool = await createDatabasePool(url);
    const plain = new pg.Client({ connectionString: url });
    await plain.connect();
    try {
      const divideByZero = sql.unsafe`SELECT 1/0`;
      expect(dependencyOutage(await rejection(pool.query(divideByZero)))).toBeNull(); // 22012
      await plain.query('CREATE TEMP TABLE once (id int PRIMARY KEY)');
      await plain.query('INSERT INTO once VALUES (1)');
      const unique = await rejection(plain.query('INSERT INTO once VALUES (1)'));
      expect(unique).toMatchObject({ code: '23505' });
      expect(dependencyOutage(unique)).toBeNull();
      expect(dependencyOutage(await rejection(plain.query('SELEKT 1')))).toBeNull();
      expect(dependencyOutage(await rejection(pool.query(sql.unsafe`SELECT ${'x'}::uuid`)))).toBeNull();
      expect(dependencyOutage(new Error('document not found'))).toBeNull();
      expect(dependencyOutage('a string')).toBeNull();
      expect(dependencyOutage(null)).toBeNull();
    } finally {
      await plain.end();
      await pool.end();
    }
  });
});

describe('a request its client aborted', () => {
  it('is not an outage (Node reports it as ECONNRESET without a syscall)', async () => {
    let seen: unknown;
    const received = new Promise<void>((resolve) => {
      const server = createServer((req) => {
        req.on('error', (error) => {
          seen = error;
          server.close();
          resolve();
        });
        req.resume();
      });
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        const client = httpRequest({ port, method: 'POST', headers: { 'content-length': '1000' } });
        client.on('error', () => undefined);
        client.write('partial', () => setTimeout(() => client.destroy(), 50));
      });
    });
    await received;
    expect(seen).toMatchObject({ code: 'ECONNRESET' });
    expect(dependencyOutage(seen)).toBeNull();
  });
});

describe('Redis unreachable', () => {
  let redis: PrivateServer;
  beforeAll(async () => {
    redis = await startPrivateRedis(await freePort());
  });
  afterAll(() => redis?.stop());

  it('a killed server: retries exhausted, the offline queue off, a connection closed', async () => {
    // As the export service and the gateway's rate limiter make their clients.
    const retrying = new Redis(redis.url, { maxRetriesPerRequest: 2 });
    const failFast = new Redis(redis.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 1_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    const lazy = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    for (const client of [retrying, failFast, lazy]) client.on('error', () => undefined);
    try {
      await retrying.ping();
      // Without an offline queue a command before the connection is ready fails at once.
      if (failFast.status !== 'ready') await new Promise((resolve) => failFast.once('ready', resolve));
      await failFast.ping();
      const inFlight = rejection(retrying.blpop('nothing-comes', 10));
      await pause(100);
      await redis.halt();

      const cut = await inFlight;
      expect((cut as Error).name).toBe('MaxRetriesPerRequestError');
      expect(dependencyOutage(cut)).toEqual({ dependency: 'redis', reason: 'MaxRetriesPerRequestError' });
      const offline = await rejection(failFast.get('x'));
      expect((offline as Error).message).toMatch(/enableOfflineQueue options is false/);
      expect(dependencyOutage(offline)).toMatchObject({ dependency: 'redis' });
      const closed = await rejection(lazy.connect());
      expect((closed as Error).message).toBe('Connection is closed.');
      expect(dependencyOutage(closed)).toMatchObject({ dependency: 'redis' });
    } finally {
      for (const client of [retrying, failFast, lazy]) client.disconnect();
      await redis.resume();
    }
  });
});

describe('NATS unreachable', () => {
  it('a refused connection, a request nobody answers or that times out, a closed connection', async () => {
    const refused = await rejection(connectNats({ servers: `127.0.0.1:${await closedPort()}` }));
    expect((refused as Error).name).toBe('ConnectionError');
    expect(dependencyOutage(refused)).toEqual({ dependency: 'nats', reason: 'ConnectionError' });

    const nc = await connectNats({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    const subject = `outage-test.${process.pid}.${Date.now()}`;
    const noResponders = await rejection(nc.request(`${subject}.nobody`, 'x', { timeout: 1_000 }));
    expect(dependencyOutage(noResponders)).toEqual({ dependency: 'nats', reason: 'NoResponders' });
    const silent = nc.subscribe(`${subject}.silent`, { callback: () => undefined });
    await nc.flush();
    const timeout = await rejection(nc.request(`${subject}.silent`, 'x', { timeout: 200 }));
    expect(dependencyOutage(timeout)).toEqual({ dependency: 'nats', reason: 'TimeoutError' });
    silent.unsubscribe();
    await nc.close();
    const closed = await rejection(nc.request(`${subject}.any`, 'x'));
    expect(dependencyOutage(closed)).toEqual({ dependency: 'nats', reason: 'ClosedConnectionError' });
  });
});

describe('Elasticsearch unreachable', () => {
  it('a refused connection and a node that does not answer', async () => {
    const refusing = new Client({ node: `http://127.0.0.1:${await closedPort()}`, maxRetries: 0 });
    const refused = await rejection(refusing.info());
    await refusing.close();
    expect((refused as Error).name).toBe('ConnectionError');
    expect(dependencyOutage(refused)).toEqual({ dependency: 'elasticsearch', reason: 'ConnectionError' });

    const silent = createNetServer(() => undefined); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const waiting = new Client({ node: `http://127.0.0.1:${port}`, maxRetries: 0, requestTimeout: 200 });
    try {
      const timedOut = await rejection(waiting.info());
      expect((timedOut as Error).name).toBe('TimeoutError');
      expect(dependencyOutage(timedOut)).toEqual({ dependency: 'elasticsearch', reason: 'TimeoutError' });
    } finally {
      await waiting.close();
      silent.close();
    }
  });
});

describe('the error handler', () => {
  it('answers an unreachable database 503 SERVICE_UNAVAILABLE with Retry-After, logged as a warning without a stack', async () => {
    const closedUrl = `postgres://postgres@127.0.0.1:${await closedPort()}/postgres`;
    nameDependency(closedUrl, 'postgres');
    const lines: Array<Record<string, unknown>> = [];
    const capture = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const app = await createApp({ service: 'test', fastify: { logger: { level: 'info', stream: capture } } });
    const plain = new pg.Pool({ connectionString: closedUrl });
    app.get('/rows', async () => (await plain.query('SELECT 1')).rows);
    app.get('/bug', async () => {
      throw new Error('a bug');
    });
    try {
      const res = await app.inject({ method: 'GET', url: '/rows' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toEqual({
        success: false,
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message: 'The service is temporarily unavailable; retry later',
          requestId: res.headers['x-request-id'],
        },
      });
      const logged = lines.find((line) => line.msg === 'postgres unavailable');
      expect(logged).toMatchObject({ level: 40, dependency: 'postgres', reason: 'ECONNREFUSED' });
      expect(logged?.err).toBeUndefined();
      expect(lines.some((line) => (line.level as number) >= 50)).toBe(false);

      // A bug is still a 500, logged as an error with its stack.
      const bug = await app.inject({ method: 'GET', url: '/bug' });
      expect(bug.statusCode).toBe(500);
      expect(bug.headers['retry-after']).toBeUndefined();
      expect(lines.find((line) => line.msg === 'request failed')).toMatchObject({ level: 50 });
    } finally {
      await app.close();
      await plain.end();
    }
  });
});
