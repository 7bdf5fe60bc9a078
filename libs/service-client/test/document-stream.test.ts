import type { AddressInfo } from 'node:net';
import { identity, requireKind } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { createApp } from '@wiki/http';
import {
  createServiceClient,
  DocumentStreamError,
  type StreamedDocument,
  streamDocumentsFrom,
} from '@wiki/service-client';
import type { FastifyInstance, FastifyReply } from 'fastify';

const secret = 'a-test-secret-that-is-long-enough';

const doc = (id: string, plainText = 'text'): StreamedDocument => ({
  id,
  workspaceId: '0b5f8f4e-2a47-4c55-9a3e-0c0d1a2b3c4d',
  createdBy: '3c3c3c3c-3c3c-4c3c-8c3c-3c3c3c3c3c3c',
  parentId: null,
  title: `Document ${id.slice(0, 4)}`,
  icon: null,
  plainText,
  archived: false,
  updatedAt: '2026-11-25T10:00:00.000Z',
});
const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';
const line = (value: unknown) => `${JSON.stringify(value)}\n`;

/**
 * How the client reads what the document service's stream (GET /internal/documents/stream) sends,
 * including the failures the real service cannot be made to produce on demand: a peer app (the
 * identity plugin, a service-only route) answering under a path prefix per case, written by hand
 * byte by byte. The real route is tested in services/document/test/document-stream.test.ts.
 */
describe('streamDocumentsFrom', () => {
  let app: FastifyInstance;
  let base: string;

  /** Writes the chunks as they are given (a UTF-8 character may be split), then ends or drops the connection. */
  function send(reply: FastifyReply, chunks: (string | Buffer)[], end: 'end' | 'drop'): void {
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const last = chunks.length - 1;
    chunks.forEach((chunk, i) => {
      // Dropped only once the bytes before it are out, so the client reads them and then the break.
      if (i === last && end === 'drop') reply.raw.write(chunk, () => reply.raw.destroy());
      else reply.raw.write(chunk);
    });
    if (end === 'end') reply.raw.end();
  }

  beforeAll(async () => {
    app = await createApp({ service: 'document', logLevel: 'silent' });
    await app.register(identity, { secret });
    const route = (prefix: string, handler: (reply: FastifyReply) => void) =>
      app.get(`/${prefix}/internal/documents/stream`, { preHandler: requireKind('service') }, async (_request, reply) =>
        handler(reply),
      );
    const emoji = line(doc(A, 'caf\u00e9 😀 深度学习'));
    const bytes = Buffer.from(emoji + line(doc(B)) + line({ done: true, count: 2 }));
    route('split', (reply) =>
      send(
        reply,
        [...bytes].map((b) => Buffer.from([b])),
        'end',
      ),
    );
    route('ended-early', (reply) => send(reply, [line(doc(A))], 'end'));
    route('dropped', (reply) => send(reply, [line(doc(A)), line(doc(B)).slice(0, 20)], 'drop'));
    route('miscounted', (reply) => send(reply, [line(doc(A)), line({ done: true, count: 2 })], 'end'));
    route('incomplete', (reply) =>
      send(reply, [line({ ...doc(A), plainText: undefined }), line({ done: true, count: 1 })], 'end'),
    );
    route('older', (reply) =>
      send(reply, [line({ ...doc(A), createdBy: undefined }), line({ done: true, count: 1 })], 'end'),
    );
    route('refused', (reply) => reply.status(503).send({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
  });

  async function read(prefix: string): Promise<{ docs: StreamedDocument[]; error?: unknown }> {
    const config = { urls: { document: `${base}/${prefix}` }, internalTokenSecret: secret } as unknown as Config;
    const docs: StreamedDocument[] = [];
    try {
      const client = createServiceClient({ service: 'search', config, logger: { error: () => undefined } });
      for await (const d of streamDocumentsFrom(client)) docs.push(d);
      return { docs };
    } catch (error) {
      return { docs, error };
    }
  }

  it('reads documents with characters of several bytes, whatever the chunks', async () => {
    const { docs, error } = await read('split');
    expect(error).toBeUndefined();
    expect(docs).toEqual([doc(A, 'caf\u00e9 😀 深度学习'), doc(B)]);
  });

  it('reads a document from a peer that does not send its creator yet with createdBy null', async () => {
    const { docs, error } = await read('older');
    expect(error).toBeUndefined();
    expect(docs).toEqual([{ ...doc(A), createdBy: null }]);
  });

  it('refuses an answer that ends without its closing line, after yielding what was whole', async () => {
    const ended = await read('ended-early');
    expect(ended.docs).toEqual([doc(A)]);
    expect(ended.error).toBeInstanceOf(DocumentStreamError);
    expect((ended.error as Error).message).toBe('the document stream was cut after 1 documents');

    const dropped = await read('dropped');
    expect(dropped.docs).toEqual([doc(A)]);
    expect(dropped.error).toBeInstanceOf(DocumentStreamError);
    expect((dropped.error as Error).message).toMatch(/^the document stream broke after 1 documents/);
  });

  it('refuses a closing line that miscounts, a document without a field, and a refusal of the stream', async () => {
    expect((await read('miscounted')).error).toEqual(new DocumentStreamError('the stream says 2 documents, sent 1'));
    expect((await read('incomplete')).error).toEqual(new DocumentStreamError('a streamed document lacks a field'));
    const refused = await read('refused');
    expect(refused.error).toBeInstanceOf(DocumentStreamError);
    expect((refused.error as Error).message).toMatch(/^the document stream answered 503/);
  });
});
