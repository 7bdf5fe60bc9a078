import { IDENTITY_HEADER } from '@wiki/auth';
import type { ServiceName } from '@wiki/config';
import { PeerReplicas, type PeerUrlsConfig } from '@wiki/service-client';
import { Agent, type Dispatcher, request } from 'undici';

/**
 * Calls the owning services' public routes as the MCP key's user. It sends on the identity token
 * the gateway made for the tool call's own request (kind `mcp`, the key's user, at least 30 s of
 * validity left): the peer checks it like any REST call, so every tool has exactly the REST
 * permissions of the user, and this service never mints an identity of its own for a user.
 */

export const PEER_TIMEOUT_MS = 10_000;

export interface Caller {
  /** The `x-wiki-identity` token of the request that carried the tool call. */
  identityToken: string;
  userId: string;
  requestId?: string;
}

/** A peer's refusal of the call, kept for the tool to put into words. */
export class PeerRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Array<{ field: string; message: string }> = [],
  ) {
    super(message);
    this.name = 'PeerRefusal';
  }
}

/** A peer that did not answer usefully (down, timeout, 5xx, not the JSON expected). */
export class PeerUnavailable extends Error {
  constructor(readonly service: ServiceName) {
    super(`The ${service} service is unavailable; try again later`);
    this.name = 'PeerUnavailable';
  }
}

let sharedAgent: Agent | undefined;
const agent = () => {
  sharedAgent ??= new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  return sharedAgent;
};

export interface AsUserClient {
  call<T>(
    caller: Caller,
    service: ServiceName,
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body?: unknown,
  ): Promise<T>;
}

/**
 * Spreads the calls over a peer's replicas and sends a call once more to another one when its
 * connection was refused (or lost, for a GET), as the service client does.
 */
export function createAsUserClient(
  config: PeerUrlsConfig,
  logger: { warn(obj: object, msg?: string): void },
  dispatcher: Dispatcher = agent(),
): AsUserClient {
  const replicas = new PeerReplicas(config);
  return {
    async call<T>(caller: Caller, service: ServiceName, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) {
      const headers: Record<string, string> = { [IDENTITY_HEADER]: caller.identityToken, accept: 'application/json' };
      if (caller.requestId) headers['x-request-id'] = caller.requestId;
      if (body !== undefined) headers['content-type'] = 'application/json';
      type Answer = { data?: unknown; error?: { code?: string; message?: string; details?: unknown } } | null;
      const signal = AbortSignal.timeout(PEER_TIMEOUT_MS);
      const send = async (origin: string) => {
        const res = await request(`${origin}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          dispatcher,
          signal,
        });
        const text = await res.body.text();
        return { status: res.statusCode, answer: (text === '' ? null : JSON.parse(text)) as Answer };
      };
      const { status, answer } = await replicas.call(service, method, send, (error, origin) => {
        logger.warn(
          { peer: service, replica: origin, method, path, cause: (error as Error).message },
          'call as the user failed',
        );
        return new PeerUnavailable(service);
      });
      if (status >= 200 && status < 300) return answer?.data as T;
      if (status >= 400 && status < 500) {
        const details = Array.isArray(answer?.error?.details)
          ? (answer.error.details as Array<{ field: string; message: string }>)
          : [];
        throw new PeerRefusal(
          status,
          answer?.error?.code ?? 'ERROR',
          answer?.error?.message ?? `refused (${status})`,
          details,
        );
      }
      logger.warn({ peer: service, method, path, status }, 'call as the user failed');
      throw new PeerUnavailable(service);
    },
  };
}
