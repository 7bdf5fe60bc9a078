import { createHash, randomBytes } from 'node:crypto';
import { MCP_KEY_BYTES, MCP_KEY_PREFIX } from '@wiki/auth';

/** How many characters of the key are kept in clear to tell keys apart in the list. */
const SHOWN_CHARS = MCP_KEY_PREFIX.length + 8;
export const MAX_KEYS_PER_USER = 25;

export function newMcpKey(): { key: string; prefix: string; hash: string } {
  const key = `${MCP_KEY_PREFIX}${randomBytes(MCP_KEY_BYTES).toString('base64url')}`;
  return { key, prefix: key.slice(0, SHOWN_CHARS), hash: hashMcpKey(key) };
}

/** Only this hash is stored: a database leak does not reveal usable keys. */
export function hashMcpKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
