import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';

type RequestConstructor = new (
  id: string,
  params: object,
  raw: IncomingMessage,
  query: object,
  log: FastifyInstance['log'],
  context: undefined,
) => FastifyRequest;

/**
 * The client address of a raw request exactly as `request.ip` gives it on REST requests (the
 * TRUST_PROXY rules included), for the WebSocket upgrade, which never becomes a Fastify request.
 * It is Fastify's own request class (built with the app's trustProxy) that reads the address,
 * so both paths count against the same address; the class is not public API, hence the check
 * at startup rather than a silent fallback to the socket's peer.
 */
export function clientAddressOf(app: FastifyInstance): (raw: IncomingMessage) => string {
  const symbol = Object.getOwnPropertySymbols(app).find((s) => s.description === 'fastify.Request');
  const FastifyRequestClass = symbol && (app as unknown as Record<symbol, unknown>)[symbol];
  if (typeof FastifyRequestClass !== 'function') {
    throw new Error("fastify's request class was not found: the client address of an upgrade cannot be derived");
  }
  const Request = FastifyRequestClass as RequestConstructor;
  return (raw) => new Request('client-address', {}, raw, {}, app.log, undefined).ip ?? '';
}
