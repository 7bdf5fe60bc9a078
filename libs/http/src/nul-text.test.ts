import type { FastifyInstance } from 'fastify';
import { createApp } from './app.js';
import { findNulField } from './nul-text.js';

describe('findNulField', () => {
  it('names the first field holding a NUL at any depth, keys included', () => {
    expect(findNulField({ title: 'ok', content: [{ content: [{ text: 'a\u0000b' }] }] })).toBe(
      'content.0.content.0.text',
    );
    expect(findNulField({ props: { 'a\u0000': 1 } })).toBe('props.a\\u0000');
    expect(findNulField('x\u0000')).toBe('body');
    expect(findNulField({ title: 'clean', n: 1, list: [true, null, 'fine'] })).toBeUndefined();
  });

  it('walks a body nested far deeper than the call stack would allow', () => {
    let deep: unknown = 'bottom\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findNulField(deep)).toMatch(/^0(\.0)+$/);
  });
});

describe('a NUL in a request is a 400 VALIDATION_ERROR naming the field', () => {
  let app: FastifyInstance;
  let handled = 0;

  beforeAll(async () => {
    app = await createApp({ service: 'test', logLevel: 'silent' });
    app.post('/things/:id', async (request) => {
      handled += 1;
      return { body: request.body, query: request.query };
    });
    await app.ready();
  });
  afterAll(() => app.close());

  const send = (url: string, payload?: string) =>
    app.inject({ method: 'POST', url, payload, headers: payload ? { 'content-type': 'application/json' } : {} });

  it.each([
    ['a body string', '/things/1', '{"title":"a\\u0000b"}', 'title'],
    ['a nested body string', '/things/1', '{"blocks":[{"content":[{"text":"x\\u0000"}]}]}', 'blocks.0.content.0.text'],
    ['a query parameter', '/things/1?q=a%00b', undefined, 'q'],
    ['a path parameter', '/things/a%00b', undefined, 'id'],
  ])('%s', async (_what, url, payload, field) => {
    const before = handled;
    const res = await send(url, payload);
    expect(res.statusCode).toBe(400);
    const error = res.json().error;
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details).toEqual([{ field, message: expect.stringContaining('NUL') }]);
    expect(handled).toBe(before); // the handler never ran
  });

  it('lets through an escaped backslash followed by u0000, which is not a NUL', async () => {
    const res = await send('/things/1?q=%2500', '{"title":"C:\\\\u0000"}');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ body: { title: 'C:\\u0000' }, query: { q: '%00' } });
  });
});
