import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  AppError,
  createApp,
  envelope,
  errorResponses,
  idParams,
  notBlank,
  object,
  refusal,
  registerHealth,
  stringEnum,
  success,
  Type,
  uuid,
} from '@wiki/http';
import type { FastifyInstance } from 'fastify';

async function build(): Promise<FastifyInstance> {
  const app = await createApp({ service: 'test', logLevel: 'silent', bodyLimit: 1024, openapi: { title: 'Test API' } });
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/things/:id',
    {
      schema: {
        params: idParams('id'),
        body: object(
          {
            name: notBlank(10),
            size: Type.Integer({ minimum: 1 }),
            color: stringEnum(['red', 'blue']),
          },
          ['name'],
        ),
        response: { 200: envelope(object({ id: uuid, name: Type.String() })) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const { name } = request.body;
      return success({ id, name, secret: 'never serialized' });
    },
  );
  app.get('/boom', async () => {
    throw new Error('database password is hunter2');
  });
  app.get('/conflict', async () => {
    throw new AppError('CONFLICT', 'Already there');
  });
  // Declared error responses serialize through their schema: the reason must survive it.
  app.get(
    '/archived',
    { schema: { response: { 200: envelope(uuid), ...errorResponses(404, 'DOCUMENT_ARCHIVED') } } },
    async () => {
      throw refusal('DOCUMENT_ARCHIVED', 'This document is archived');
    },
  );
  app.get('/unique', async () => {
    throw Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });
  });
  let healthy = true;
  registerHealth(app, {
    database: async () => {
      if (!healthy) throw new Error('down');
    },
  });
  app.decorate('setHealthy', (v: boolean) => {
    healthy = v;
  });
  await app.ready();
  return app;
}

describe('createApp', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await build();
  });
  afterAll(() => app.close());

  const id = '3f1d7f0e-8a1b-4c56-9a0e-2b7c1d9e4f10';

  it('wraps results in the success envelope and serializes only schema fields', async () => {
    const res = await app.inject({ method: 'POST', url: `/things/${id}`, payload: { name: 'lamp', role: 'OWNER' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, data: { id, name: 'lamp' } });
  });

  it('names the field of a validation error', async () => {
    const res = await app.inject({ method: 'POST', url: `/things/${id}`, payload: { name: 'x'.repeat(11) } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.success).toBe(false);
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.details).toEqual([{ field: 'name', message: 'must be at most 10 characters' }]);
    expect(body.error.requestId).toBe(res.headers['x-request-id']);
  });

  it.each([
    [{}, 'name', 'is required'],
    [{ name: '   ' }, 'name', 'must not be blank'],
    [{ name: 'a', size: 0 }, 'size', 'must be >= 1'],
    [{ name: 'a', color: 'green' }, 'color', 'must be one of red, blue'],
    [{ name: 42 }, 'name', 'must be string'],
    [{ name: 'a', size: '5' }, 'size', 'must be integer'],
  ])('rejects %o naming %s', async (payload, field, message) => {
    const res = await app.inject({ method: 'POST', url: `/things/${id}`, payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0]).toEqual({ field, message });
  });

  it('answers a malformed UUID with 400, not 500', async () => {
    const res = await app.inject({ method: 'POST', url: '/things/not-a-uuid', payload: { name: 'a' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0].field).toBe('id');
  });

  it('answers malformed JSON with 400', async () => {
    const res = await app.inject({
      method: 'POST',
      url: `/things/${id}`,
      payload: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
  });

  it('reads an oversized body to its end before answering 413, so a streaming client sees the answer', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const body = JSON.stringify({ name: 'a', pad: 'x'.repeat(200_000) });
    const res = await fetch(`http://127.0.0.1:${port}/things/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    // The connection survived: the next request on the same client works.
    expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);
  });

  it('answers an oversized body with 413 and an unknown content type with 415', async () => {
    const big = await app.inject({
      method: 'POST',
      url: `/things/${id}`,
      payload: { name: 'a', pad: 'x'.repeat(2000) },
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().error.code).toBe('PAYLOAD_TOO_LARGE');
    const xml = await app.inject({
      method: 'POST',
      url: `/things/${id}`,
      payload: '<a/>',
      headers: { 'content-type': 'application/xml' },
    });
    expect(xml.statusCode).toBe(415);
    expect(xml.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('hides internal errors behind a 500 envelope without details', async () => {
    const res = await app.inject({ method: 'GET', url: '/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json().error).toMatchObject({ code: 'INTERNAL_ERROR', message: 'Internal server error' });
    expect(res.body).not.toContain('hunter2');
    expect(res.body).not.toContain('at ');
  });

  it('maps app errors and unique violations to 409', async () => {
    expect((await app.inject({ method: 'GET', url: '/conflict' })).json().error).toMatchObject({
      code: 'CONFLICT',
      message: 'Already there',
    });
    const unique = await app.inject({ method: 'GET', url: '/unique' });
    expect(unique.statusCode).toBe(409);
    expect(unique.json().error.code).toBe('CONFLICT');
    expect(unique.json().error.reason).toBeUndefined();
  });

  it('carries the domain reason of a refusal next to its code, through a declared error response', async () => {
    const res = await app.inject({ method: 'GET', url: '/archived' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      success: false,
      error: {
        code: 'CONFLICT',
        reason: 'DOCUMENT_ARCHIVED',
        message: 'This document is archived',
        requestId: res.headers['x-request-id'],
      },
    });
  });

  it('answers unknown routes with the 404 envelope', async () => {
    const res = await app.inject({ method: 'GET', url: '/nowhere?x=1' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({
      success: false,
      error: { code: 'NOT_FOUND', message: 'Route GET /nowhere not found' },
    });
  });

  it('answers what the router refuses (an over-long path parameter, a malformed escape) with the 400 envelope', async () => {
    for (const url of [`/things/${'x'.repeat(600)}`, '/things/%E0%A4%A']) {
      const res = await app.inject({ method: 'POST', url, payload: { name: 'lamp' } });
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toEqual({
        success: false,
        error: {
          code: 'VALIDATION_ERROR',
          message: expect.any(String),
          details: [{ field: 'path', message: expect.any(String) }],
          requestId: res.headers['x-request-id'],
        },
      });
    }
  });

  it('keeps a well-formed client request id and replaces a malformed one', async () => {
    const kept = await app.inject({ method: 'GET', url: '/health/live', headers: { 'x-request-id': 'abc-123' } });
    expect(kept.headers['x-request-id']).toBe('abc-123');
    const replaced = await app.inject({ method: 'GET', url: '/health/live', headers: { 'x-request-id': 'bad id\n' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports readiness per dependency', async () => {
    expect((await app.inject({ method: 'GET', url: '/health/ready' })).json()).toEqual({
      status: 'UP',
      checks: { database: 'UP', accepting: 'UP' },
    });
    (app as unknown as { setHealthy(v: boolean): void }).setHealthy(false);
    const down = await app.inject({ method: 'GET', url: '/health/ready' });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toEqual({ status: 'DOWN', checks: { database: 'DOWN', accepting: 'UP' } });
    (app as unknown as { setHealthy(v: boolean): void }).setHealthy(true);
  });

  it('describes its routes in /openapi.json', async () => {
    const spec = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(spec.info.title).toBe('Test API');
    expect(spec.paths['/things/{id}'].post).toBeDefined();
    expect(spec.paths['/openapi.json']).toBeUndefined();
    const archived = spec.paths['/archived'].get.responses;
    expect(Object.keys(archived).sort()).toEqual(['200', '404', '409']);
    expect(archived['409'].description).toMatch(/^CONFLICT: .*reason: DOCUMENT_ARCHIVED/);
    expect(archived['404'].content['application/json'].schema.properties.error.properties.reason.enum).toContain(
      'DOCUMENT_ARCHIVED',
    );
  });
});
