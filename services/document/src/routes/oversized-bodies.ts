import { AppError } from '@wiki/http';
import type { FastifyInstance } from 'fastify';

/**
 * Answers an oversized JSON body with 413 after reading it, instead of Fastify's default of
 * answering at once and closing the connection: a client (the gateway's proxy above all) that is
 * still sending sees the socket reset rather than the 413, and the gateway turned it into a 503.
 * Bodies beyond `drainCapBytes` are not worth reading: those still get the immediate close.
 * Multipart requests have their own limits (see internal-collab.ts).
 */
export function answerOversizedBodiesCleanly(app: FastifyInstance, limitBytes: number, drainCapBytes: number): void {
  app.addHook('onRequest', async (request) => {
    const length = Number(request.headers['content-length']);
    if (!Number.isFinite(length) || length <= limitBytes || request.headers['content-type']?.startsWith('multipart/')) return;
    if (length > drainCapBytes) return; // Fastify refuses it and closes the connection.
    for await (const _chunk of request.raw) {
      // discard
    }
    throw new AppError('PAYLOAD_TOO_LARGE', `Request body is too large (at most ${limitBytes} bytes)`);
  });
}
