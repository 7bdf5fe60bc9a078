import type { ServiceName } from '@wiki/config';
import { AppError } from '@wiki/http';
import type { PeerError, ServiceClient } from '@wiki/service-client';

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
    readonly details: Array<{ field: string; message: string; current?: number }> = [],
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

export interface AsUserClient {
  call<T>(
    caller: Caller,
    service: ServiceName,
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body?: unknown,
  ): Promise<T>;
}

const refusal = (status: number, error: PeerError | undefined) =>
  new PeerRefusal(
    status,
    error?.code ?? 'ERROR',
    error?.message ?? `refused (${status})`,
    Array.isArray(error?.details) ? (error.details as PeerRefusal['details']) : [],
  );

/**
 * The service's peers client (replicas, retries, the deadline, tracing, logging a failure once),
 * calling with the user's identity token instead of the service's own.
 */
export function createAsUserClient(peers: ServiceClient): AsUserClient {
  return {
    async call<T>(caller: Caller, service: ServiceName, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) {
      const options = {
        identityToken: caller.identityToken,
        requestId: caller.requestId,
        timeoutMs: PEER_TIMEOUT_MS,
        refusal,
      };
      let data: T | null;
      try {
        if (method === 'GET') data = await peers.get<T>(service, path, options);
        else if (method === 'POST') data = await peers.post<T>(service, path, body, options);
        else data = await peers.put<T>(service, path, body, options);
      } catch (error) {
        if (error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE') throw new PeerUnavailable(service);
        throw error;
      }
      // The client answers a 404 as null; the tools word it as any other refusal.
      if (data === null) throw new PeerRefusal(404, 'NOT_FOUND', 'not found');
      return data;
    },
  };
}
