import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';

/**
 * Runs `work` on one replica at a time: while it holds the database's session advisory lock named
 * `name` on a connection of its own; null, without running it, when another holder has the lock.
 * The lock is released before the connection goes back to the pool (the pools here never reset
 * sessions), and by the server itself if the connection or its process dies.
 */
export function withAdvisoryLock<T>(
  pool: { connect<R>(handler: (connection: CommonQueryMethods) => Promise<R>): Promise<R> },
  name: string,
  work: () => Promise<T>,
): Promise<{ value: T } | null> {
  const key = sql.fragment`hashtextextended(${name}, 0)`;
  return pool.connect(async (connection) => {
    const locked = await connection.oneFirst(
      sql.type(z.object({ locked: z.boolean() }))`SELECT pg_try_advisory_lock(${key}) AS locked`,
    );
    if (!locked) return null;
    try {
      return { value: await work() };
    } finally {
      await connection.query(sql.unsafe`SELECT pg_advisory_unlock(${key})`);
    }
  });
}
