import {
  createPool,
  createTypeParserPreset,
  type DatabasePool,
  type Interceptor,
  type QueryResultRow,
  SchemaValidationError,
} from 'slonik';
import { recoveringPgDriverFactory } from './recovering-driver.js';

export interface DatabaseOptions {
  maximumPoolSize?: number;
  statementTimeoutMs?: number;
}

/** Validates rows of `sql.type(schema)` queries against their zod schema (slonik leaves that to us). */
const validateRows: Interceptor = {
  name: 'validate-rows',
  transformRowAsync: async (ctx, query, row, _fields) => {
    if (!ctx.resultParser) return row;
    const result = await ctx.resultParser.safeParseAsync(row);
    if (!result.success) throw new SchemaValidationError(query, row as never, result.error.issues as never);
    return result.data as QueryResultRow;
  },
};

/** Timestamps leave the database as ISO 8601 strings, the form the API speaks. */
const isoTimestamp = (value: string) =>
  new Date(Date.parse(value.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'))).toISOString();

export async function createDatabasePool(connectionUri: string, options: DatabaseOptions = {}): Promise<DatabasePool> {
  const parsers = createTypeParserPreset().filter(
    (p) => !['timestamptz', 'timestamp', 'date', 'int8', 'numeric'].includes(p.name),
  );
  return createPool(connectionUri, {
    maximumPoolSize: options.maximumPoolSize ?? 10,
    statementTimeout: options.statementTimeoutMs ?? 30_000,
    captureStackTrace: false,
    // A connection cut mid-query must leave the pool (recovering-driver.ts), or a crash of Postgres
    // under load leaves the pool without connections.
    driverFactory: recoveringPgDriverFactory(),
    // slonik's default sends DISCARD ALL to the server every time a connection goes back to the
    // pool: one more round trip per query. Nothing here sets session state (no SET, temporary
    // tables, session advisory locks or LISTEN on pooled connections), so there is nothing to reset.
    resetConnection: async () => {},
    interceptors: [validateRows],
    typeParsers: [
      ...parsers,
      { name: 'timestamptz', parse: isoTimestamp },
      { name: 'timestamp', parse: (v) => isoTimestamp(`${v}+00`) },
      { name: 'int8', parse: (v) => Number.parseInt(v, 10) },
      { name: 'numeric', parse: (v) => Number.parseFloat(v) },
    ],
  });
}
