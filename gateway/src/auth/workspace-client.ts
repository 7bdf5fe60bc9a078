import { IDENTITY_HEADER, serviceTokenSource } from '@wiki/auth';
import { serviceUnavailable } from '@wiki/http';
import type { FastifyBaseLogger } from 'fastify';

/** A local user as the workspace service knows them. */
export interface LocalUser {
  id: string;
  email?: string;
  name?: string;
  avatarUrl?: string | null;
  idpUid?: string;
}

export type InternalCallResult<T> = { status: 'ok'; data: T } | { status: 'refused'; httpStatus: number };

/** How long the gateway waits for the workspace service's internal routes. */
const TIMEOUT_MS = 5_000;

/**
 * Calls the workspace service's internal routes (`/internal/...`, never exposed by the gateway)
 * as the service `gateway`. A network failure, a timeout or a 5xx is a 503 for the client; a 4xx
 * is returned as `refused` for the caller to interpret.
 */
export class WorkspaceClient {
  private readonly serviceToken: () => Promise<string>;

  constructor(
    private readonly baseUrl: () => string,
    internalTokenSecret: string,
  ) {
    this.serviceToken = serviceTokenSource(internalTokenSecret, 'gateway');
  }

  async post<T>(
    path: string,
    body: unknown,
    requestId: string,
    log: FastifyBaseLogger,
  ): Promise<InternalCallResult<T>> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl()}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [IDENTITY_HEADER]: await this.serviceToken(),
          'x-request-id': requestId,
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      log.error({ err: (error as Error).message, path }, 'workspace service unreachable');
      throw serviceUnavailable('The workspace service is unavailable');
    }
    if (response.status >= 500) {
      await response.body?.cancel();
      log.error({ status: response.status, path }, 'workspace service failed');
      throw serviceUnavailable('The workspace service is unavailable');
    }
    if (response.status >= 400) {
      await response.body?.cancel();
      return { status: 'refused', httpStatus: response.status };
    }
    const json = (await response.json().catch(() => undefined)) as { data?: T } | undefined;
    if (!json?.data) {
      log.error({ status: response.status, path }, 'workspace service answered without data');
      throw serviceUnavailable('The workspace service is unavailable');
    }
    return { status: 'ok', data: json.data };
  }
}
