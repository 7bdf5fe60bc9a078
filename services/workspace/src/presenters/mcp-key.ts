import type { McpKeyRow } from '../db/mcp-keys.js';

/** A key in the list: never the key itself, only its first characters. */
export function presentMcpKey(row: McpKeyRow) {
  return { id: row.id, name: row.name, prefix: row.prefix, lastUsedAt: row.lastUsedAt, createdAt: row.createdAt };
}

/** The one answer that carries the key (ARCHITECTURE 5.3). */
export function presentCreatedMcpKey(row: McpKeyRow, key: string) {
  return { id: row.id, name: row.name, key, prefix: row.prefix, createdAt: row.createdAt };
}
