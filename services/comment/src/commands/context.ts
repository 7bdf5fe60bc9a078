import type { MembershipAccess } from '@wiki/auth';
import type { DatabasePool } from '@wiki/db';
import type { DocumentDirectory } from '../projections/documents.js';
import type { UserDirectory } from '../projections/users.js';

export interface Logger {
  warn(obj: object, msg?: string): void;
}

/** What the commands need; built once in app.ts. */
export interface CommentContext {
  /** The service kit's pool: a transaction that wrote events wakes the outbox relay on commit. */
  pool: DatabasePool;
  access: MembershipAccess;
  documents: DocumentDirectory;
  users: UserDirectory;
  logger: Logger;
}

/** The signed-in caller (libs/auth). */
export type { Actor } from '@wiki/auth';
