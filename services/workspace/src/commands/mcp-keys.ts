import { notFound, refusal } from '@wiki/http';
import {
  countMcpKeys,
  deleteMcpKey as deleteKeyRow,
  insertMcpKey,
  listMcpKeys as listKeyRows,
  type McpKeyRow,
  useMcpKey,
} from '../db/mcp-keys.js';
import { findUserById, type UserRow } from '../db/users.js';
import { hashMcpKey, MAX_KEYS_PER_USER, newMcpKey } from '../domain/mcp-keys.js';
import type { Context } from './context.js';

export function createMcpKey(ctx: Context, userId: string, name: string): Promise<{ row: McpKeyRow; key: string }> {
  return ctx.pool.transaction(async (tx) => {
    if ((await countMcpKeys(tx, userId)) >= MAX_KEYS_PER_USER) {
      throw refusal('MCP_KEY_LIMIT', `A user can hold at most ${MAX_KEYS_PER_USER} MCP keys; delete one first`);
    }
    const { key, prefix, hash } = newMcpKey();
    const row = await insertMcpKey(tx, { userId, name: name.trim(), hash, prefix });
    return { row, key };
  });
}

export function listMcpKeys(ctx: Context, userId: string): Promise<readonly McpKeyRow[]> {
  return listKeyRows(ctx.pool, userId);
}

export async function deleteMcpKey(ctx: Context, userId: string, id: string): Promise<void> {
  if (!(await deleteKeyRow(ctx.pool, userId, id))) throw notFound('MCP key');
}

/** The gateway's lookup of an `X-Mcp-Api-Key`; stamps the key's last use (at most once a minute). */
export async function resolveMcpKey(ctx: Context, key: string): Promise<UserRow> {
  const userId = await useMcpKey(ctx.pool, hashMcpKey(key));
  const user = userId ? await findUserById(ctx.pool, userId) : null;
  if (user?.status !== 'active') throw notFound('MCP key');
  return user;
}
