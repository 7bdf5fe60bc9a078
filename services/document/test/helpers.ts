import { mintServiceToken } from '@wiki/auth';
import { createDatabasePool, type DatabasePool } from '@wiki/db';
import { type ApiResponse, type OutboxEvent, readOutbox, type SignedInUser, type Stack } from '@wiki/testing';
import { startPlatform } from '../../../test/platform.js';

/**
 * The real gateway, workspace and document services, in this process, on throw-away databases.
 * Users, workspaces, members and documents come from the factories of @wiki/testing.
 */
export interface DocStack extends Stack {
  /** A pool on the document service's database (to inspect rows and the outbox). */
  pool: DatabasePool;
  /** A public API call through the gateway as `as` (none: anonymous). */
  call<T = any>(method: string, path: string, as?: SignedInUser | null, body?: unknown): Promise<ApiResponse<T>>;
  /** A call with the internal API key through the gateway. */
  internal(
    method: string,
    path: string,
    init?: { body?: FormData | string | Uint8Array; headers?: Record<string, string> },
  ): Promise<Response>;
  /** A call straight to the document service (bypassing the gateway) with a service token or none. */
  direct(method: string, path: string, identity?: string | null): Promise<ApiResponse>;
  serviceToken(service?: string): Promise<string>;
  /** The document service's outbox, oldest first. */
  outbox(type?: string): Promise<OutboxEvent[]>;
}

export async function startDocStack(env: Record<string, string> = {}): Promise<DocStack> {
  const stack = await startPlatform(['workspace', 'document'], { env });
  const pool = await createDatabasePool(stack.config.databaseUrls.document, { maximumPoolSize: 3 });
  const stopStack = stack.stop;

  return Object.assign(stack, {
    pool,
    call: <T>(method: string, path: string, as?: SignedInUser | null, body?: unknown) =>
      stack.request<T>(method, path, { token: as?.token, body }),
    internal(
      method: string,
      path: string,
      init: { body?: FormData | string | Uint8Array; headers?: Record<string, string> } = {},
    ) {
      return fetch(`${stack.gatewayUrl}${path}`, {
        method,
        body: init.body,
        headers: { 'x-internal-api-key': stack.config.internalApiKey, ...init.headers },
      });
    },
    async direct(method: string, path: string, identity?: string | null): Promise<ApiResponse> {
      const headers: Record<string, string> = identity ? { 'x-wiki-identity': identity } : {};
      const res = await fetch(`${stack.serviceUrls.document}${path}`, { method, headers });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, headers: Object.fromEntries(res.headers) };
    },
    serviceToken: (service = 'comment') => mintServiceToken(stack.config.internalTokenSecret, service, 3600),
    outbox: (type?: string) => readOutbox(pool, type),
    async stop() {
      await pool.end();
      await stopStack();
    },
  });
}
