import type pg from 'pg';
import { createPreparedPool } from './prepared.js';

/**
 * A named statement: Postgres parses and plans it once per connection. The name is per
 * connection, so change it whenever the text changes.
 */
export interface NamedStatement {
  name: string;
  text: string;
}

/** Runs a named statement with its values on the reads' own pool and answers its rows. */
export type RunPrepared = <Row>(statement: NamedStatement, values: unknown[]) => Promise<Row[]>;

/** Every service's prepared reads end the same way: their pool closes. */
export interface ClosableReads {
  end(): Promise<void>;
}

/** How a service opens its prepared reads: the database, where an idle connection's failure is told, how many connections. */
export type PreparedReadsFactory<Reads extends ClosableReads> = (
  connectionString: string,
  logger: { warn(obj: object, msg: string): void },
  maxConnections?: number,
) => Reads;

/**
 * The factory of a service's hot reads on a plain node-postgres pool (see createPreparedPool): the
 * service writes only its statements and what it makes of their rows (`build`); the pool, running a
 * statement and closing are the same for every service.
 */
export function preparedReads<Reads extends ClosableReads>(
  build: (run: RunPrepared) => Omit<Reads, 'end'>,
): PreparedReadsFactory<Reads> {
  return (connectionString, logger, maxConnections = 10) => {
    const pool = createPreparedPool(connectionString, logger, maxConnections);
    const run: RunPrepared = async <Row>(statement: NamedStatement, values: unknown[]) => {
      const result = await pool.query<pg.QueryResultRow>({ ...statement, values });
      return result.rows as Row[];
    };
    return { ...build(run), end: () => pool.end() } as Reads;
  };
}
