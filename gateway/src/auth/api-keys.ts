import { createHash, timingSafeEqual } from 'node:crypto';
import { unauthorized } from '@wiki/http';
import type { FastifyBaseLogger } from 'fastify';
import { hashOf, SingleFlight, TtlCache } from '../ttl-cache.js';
import type { WorkspaceClient } from './workspace-client.js';

export const INTERNAL_KEY_HEADER = 'x-internal-api-key';
export const MCP_KEY_HEADER = 'x-mcp-api-key';

/**
 * Compares the presented internal key with INTERNAL_API_KEY in constant time. Both sides are
 * hashed first so that the comparison does not reveal the key's length either.
 */
export function isInternalKey(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The user an MCP key acts as (the workspace service's `/internal/mcp-keys/resolve` answer). */
export interface McpKeyOwner {
  userId: string;
  email?: string;
  name?: string;
  avatarUrl?: string | null;
  idpUid?: string;
}

/** A deleted key stops working within this time. */
const CACHE_MS = 10_000;

/** Resolves MCP keys to their users through the workspace service, which stores only their hashes. */
export class McpKeys {
  private readonly cache = new TtlCache<McpKeyOwner>();
  private readonly inFlight = new SingleFlight<McpKeyOwner>();

  constructor(private readonly workspace: WorkspaceClient) {}

  resolve(key: string, requestId: string, log: FastifyBaseLogger): Promise<McpKeyOwner> {
    const cacheKey = hashOf(key);
    const hit = this.cache.get(cacheKey);
    if (hit) return Promise.resolve(hit);
    return this.inFlight.run(cacheKey, async () => {
      const result = await this.workspace.post<McpKeyOwner>('/internal/mcp-keys/resolve', { key }, requestId, log);
      if (result.status === 'refused') {
        if (result.httpStatus !== 404)
          log.warn({ status: result.httpStatus }, 'workspace service refused an MCP key lookup');
        throw unauthorized('Invalid MCP API key');
      }
      this.cache.set(cacheKey, result.data, CACHE_MS);
      return result.data;
    });
  }
}
