import type { DatabasePool } from '@wiki/db';
import type { MembershipAccess, UsersProjection } from '@wiki/projections';
import type { PreparedReads } from '../db/prepared-reads.js';
import type { DocumentDirectory } from '../projections/documents.js';

export interface Logger {
  warn(obj: object, msg?: string): void;
}

/** What the commands need; built once in app.ts. */
export interface CommentContext {
  /** The service kit's pool: a transaction that wrote events wakes the outbox relay on commit. */
  pool: DatabasePool;
  /** The hottest read (the thread list) as a prepared statement on a pool of its own. */
  reads: PreparedReads;
  access: MembershipAccess;
  documents: DocumentDirectory;
  /** Names and avatars of the users comments show (libs/projections). */
  users: UsersProjection;
  logger: Logger;
}

/** The signed-in caller (libs/auth). */
export type { Actor } from '@wiki/auth';
