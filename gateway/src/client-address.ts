import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyServerOptions } from 'fastify';

/**
 * The client address of a raw request as `request.ip` gives it on REST requests, for the
 * WebSocket upgrade, which never becomes a Fastify request: the same `trustProxy` value read by
 * the same library Fastify reads it with (@fastify/proxy-addr), so both paths count guesses
 * against the same address. Fastify's forms: false (the socket's peer), true (the furthest
 * address), a trust function, or addresses/subnets as a list or a comma-separated string. A hop
 * count arrives here already as a function (service.ts).
 */
export function clientAddressOf(trustProxy: FastifyServerOptions['trustProxy']): (raw: IncomingMessage) => string {
  if (!trustProxy) return (raw) => raw.socket.remoteAddress ?? '';
  const trust =
    typeof trustProxy === 'function'
      ? trustProxy
      : trustProxy === true
        ? () => true
        : proxyAddr.compile(typeof trustProxy === 'string' ? trustProxy.split(',').map((s) => s.trim()) : trustProxy);
  return (raw) => proxyAddr(raw, trust);
}
