import { type CommonQueryMethods, sql, z } from '@wiki/db';

export const McpKeyRow = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  lastUsedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type McpKeyRow = z.infer<typeof McpKeyRow>;

const columns = sql.fragment`id, name, prefix, last_used_at AS "lastUsedAt", created_at AS "createdAt"`;

export function insertMcpKey(
  db: CommonQueryMethods,
  key: { userId: string; name: string; hash: string; prefix: string },
): Promise<McpKeyRow> {
  return db.one(sql.type(McpKeyRow)`
    INSERT INTO mcp_keys (user_id, name, key_hash, prefix)
    VALUES (${key.userId}, ${key.name}, ${key.hash}, ${key.prefix})
    RETURNING ${columns}`);
}

export function countMcpKeys(db: CommonQueryMethods, userId: string): Promise<number> {
  return db.oneFirst(
    sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM mcp_keys WHERE user_id = ${userId}`,
  );
}

export function listMcpKeys(db: CommonQueryMethods, userId: string): Promise<readonly McpKeyRow[]> {
  return db.any(
    sql.type(McpKeyRow)`SELECT ${columns} FROM mcp_keys WHERE user_id = ${userId} ORDER BY created_at DESC, id`,
  );
}

/** True when the user's key existed and is gone. */
export async function deleteMcpKey(db: CommonQueryMethods, userId: string, id: string): Promise<boolean> {
  const result = await db.query(sql.unsafe`DELETE FROM mcp_keys WHERE id = ${id} AND user_id = ${userId}`);
  return result.rowCount > 0;
}

/**
 * How stale a key's `last_used_at` may get: a busy key is written at most once per this interval,
 * not on every lookup (a row version and WAL per request add up, and buy nothing).
 */
const LAST_USE_PRECISION = sql.fragment`interval '1 minute'`;

/**
 * The owner of the key with this hash, in one statement: it also stamps the key's last use, but
 * only when the stamp is older than LAST_USE_PRECISION (otherwise the row is not written at all).
 */
export function useMcpKey(db: CommonQueryMethods, hash: string): Promise<string | null> {
  return db.maybeOneFirst(sql.type(z.object({ userId: z.string() }))`
    WITH key AS (
      SELECT id, user_id, last_used_at FROM mcp_keys WHERE key_hash = ${hash}
    ), stamp AS (
      UPDATE mcp_keys SET last_used_at = now()
      FROM key
      WHERE mcp_keys.id = key.id
        AND (key.last_used_at IS NULL OR key.last_used_at < now() - ${LAST_USE_PRECISION})
    )
    SELECT user_id AS "userId" FROM key`);
}
