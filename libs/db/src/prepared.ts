import pg from 'pg';

/** A plain node-postgres pool for named prepared statements on hot reads (rows skip slonik's checks). */
export type PreparedPool = pg.Pool;

/** Same statement timeout as the shared slonik pool (pool.ts). */
const STATEMENT_TIMEOUT_MS = 30_000;
/**
 * As slonik's connection timeout: node-postgres waits for ever by default, so a database that
 * stops answering (rather than refusing) would hold every request until the client gave up.
 */
const CONNECT_TIMEOUT_MS = 5_000;

/** Settings of the pool's sessions (`SET name = value` for every connection it opens). */
export type SessionSettings = Record<string, string>;

export function createPreparedPool(
  connectionString: string,
  logger: { warn(obj: object, msg: string): void },
  maxConnections = 10,
  session: SessionSettings = {},
): PreparedPool {
  const options = Object.entries(session)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
  const pool = new pg.Pool({
    connectionString,
    max: maxConnections,
    ...(options ? { options } : {}),
    statement_timeout: STATEMENT_TIMEOUT_MS,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (err) => logger.warn({ err }, 'idle read connection failed'));
  return pool;
}

/**
 * SQL that formats a timestamp column as ISO 8601 in UTC with milliseconds, cut (not rounded) as
 * JavaScript's Date cuts microseconds: the text the shared pool's timestamp parser produces.
 */
export const isoTimestampSql = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
