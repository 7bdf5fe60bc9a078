import { createHash, timingSafeEqual } from 'node:crypto';
import { isMcpKeyShaped } from '@wiki/auth';
import { hashOf, LocalCache, SingleFlight } from '@wiki/cache';
import { unauthorized } from '@wiki/http';
import type { ServiceClient } from '@wiki/service-client';
import type { FastifyBaseLogger } from 'fastify';
import type { Screened } from './guessing.js';

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

/** The internal key needs no screening: comparing it costs two hashes, as little as any prefilter. */
export function screenInternalKey(presented: string, expected: string): Screened<true> {
  return isInternalKey(presented, expected)
    ? { verdict: 'known', check: () => Promise.resolve(true) }
    : { verdict: 'refused', error: unauthorized('A valid X-Internal-Api-Key is required') };
}

/**
 * Names an MCP key for the services (the identity's `keyId`: MCP sessions are bounded per key)
 * without giving the key away: a digest of it, kept apart from the one the workspace service
 * stores by a label of its own.
 */
export function mcpKeyIdOf(key: string): string {
  return createHash('sha256').update('wiki mcp key id\0').update(key).digest('base64url').slice(0, 22);
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
/**
 * An unknown key is answered from memory for this long, so retrying a wrong key costs the
 * workspace service nothing. Safe to keep a while: keys are random, so a key that was unknown
 * never becomes a valid one.
 */
export const UNKNOWN_KEY_CACHE_MS = 60_000;
/** At most this many unknown keys are remembered (the least recently used go first): bounded memory under a flood. */
const UNKNOWN_KEY_CACHE_SIZE = 10_000;
/** A key that resolved is "known" this long: over budget, its lookups need no free slot (guessing.ts). */
const VOUCHED_MS = 10 * 60_000;

const invalid = () => unauthorized('Invalid MCP API key');

/** Resolves MCP keys to their users through the workspace service, which stores only their hashes. */
export class McpKeys {
  private readonly cache = new LocalCache<McpKeyOwner>({ maxEntries: 10_000, ttlMs: CACHE_MS });
  private readonly unknown = new LocalCache<true>({ maxEntries: UNKNOWN_KEY_CACHE_SIZE, ttlMs: UNKNOWN_KEY_CACHE_MS });
  private readonly vouched = new LocalCache<true>({ maxEntries: 10_000, ttlMs: VOUCHED_MS });
  private readonly inFlight = new SingleFlight<McpKeyOwner>();

  constructor(private readonly peers: ServiceClient) {}

  /**
   * What can be told of the key without asking the workspace service: refused when it has not the
   * shape of a key or is remembered unknown, known when cached or resolved not long ago.
   */
  screen(key: string, requestId: string, log: FastifyBaseLogger): Screened<McpKeyOwner> {
    if (!isMcpKeyShaped(key)) return { verdict: 'refused', error: invalid() };
    const cacheKey = hashOf(key);
    const hit = this.cache.get(cacheKey);
    if (hit) return { verdict: 'known', check: () => Promise.resolve(hit) };
    if (this.unknown.get(cacheKey)) return { verdict: 'refused', error: invalid() };
    const check = () => this.lookUp(key, cacheKey, requestId, log);
    return { verdict: this.vouched.get(cacheKey) ? 'known' : 'unknown', check };
  }

  private lookUp(key: string, cacheKey: string, requestId: string, log: FastifyBaseLogger): Promise<McpKeyOwner> {
    return this.inFlight.run(cacheKey, async () => {
      const owner = await this.peers.post<McpKeyOwner>(
        'workspace',
        '/internal/mcp-keys/resolve',
        { key },
        {
          requestId,
          // A key it cannot read (400) is as invalid as an unknown one (404, null).
          refusal: (status) => {
            if (status !== 400) return undefined;
            log.warn({ status }, 'workspace service refused an MCP key lookup');
            this.unknown.set(cacheKey, true);
            return invalid();
          },
        },
      );
      if (!owner) {
        this.unknown.set(cacheKey, true);
        throw invalid();
      }
      this.cache.set(cacheKey, owner);
      this.vouched.set(cacheKey, true);
      return owner;
    });
  }
}
