export { sql } from 'slonik';
export type { DatabasePool, DatabaseTransactionConnection, CommonQueryMethods } from 'slonik';
export { z } from 'zod';
export * from './admin.js';
export * from './migrate.js';
export * from './pool.js';
export * from './batcher.js';
