import { createDatabasePool, type DatabasePool, sql } from '@wiki/db';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../src/app.js';

/**
 * The last line of defence: text that Postgres cannot store and that got past the checks at the
 * edge (here smuggled in base64 through a header) is still the client's fault, a 400, not a 500.
 */
let app: FastifyInstance;
let pool: DatabasePool;

beforeAll(async () => {
  pool = await createDatabasePool(`${process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432'}/postgres`);
  app = await createApp({ service: 'test', logLevel: 'silent' });
  const value = (header: unknown) => Buffer.from(String(header), 'base64').toString('utf8');
  app.post('/text', async (request) => pool.oneFirst(sql.unsafe`SELECT ${value(request.headers['x-value'])}::text`));
  app.post('/json', async (request) => {
    const text = JSON.parse(value(request.headers['x-value'])) as string;
    return pool.oneFirst(sql.unsafe`SELECT ${sql.jsonb({ text })}`);
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await pool?.end();
});

const send = (url: string, value: string) =>
  app.inject({ method: 'POST', url, headers: { 'x-value': Buffer.from(value, 'utf8').toString('base64') } });

it.each([
  ['a NUL in text (22021)', '/text', 'a\u0000b'],
  ['a NUL in jsonb (22P05)', '/json', JSON.stringify('a\u0000b')],
  ['a lone surrogate in jsonb (22P02, slonik InvalidInputError)', '/json', '"\\ud800"'],
])('%s is a 400 VALIDATION_ERROR', async (_what, url, value) => {
  const res = await send(url, value);
  expect(res.json().error?.code).toBe('VALIDATION_ERROR');
  expect(res.statusCode).toBe(400);
});

it('still stores what Postgres accepts', async () => {
  const res = await send('/text', 'plain');
  expect(res.statusCode).toBe(200);
  expect(res.body).toBe('plain');
});
