export type { CommonQueryMethods, DatabasePool, DatabaseTransactionConnection } from 'slonik';
export { sql } from 'slonik';
export { z } from 'zod';
export * from './admin.js';
export * from './advisory-lock.js';
export * from './batcher.js';
export * from './migrate.js';
export * from './pool.js';
export * from './prepared.js';
