import type { MembershipAccess } from '@wiki/auth';
import type { DatabasePool } from '@wiki/db';
import type { DocumentReads } from './db/document-reads.js';
import type { UserDirectory } from './user-directory.js';

/** What commands and queries run against; built once per app. */
export interface DocumentContext {
  pool: DatabasePool;
  /** The hottest reads, as prepared statements on their own pool (see db/document-reads.ts). */
  reads: DocumentReads;
  membership: MembershipAccess;
  users: UserDirectory;
  /** Called after a transaction that wrote events commits, so the relay sends them at once. */
  eventsWritten(): void;
}

/** The signed-in caller as commands see it. */
export interface Actor {
  userId: string;
  name?: string;
  email?: string;
  avatarUrl?: string | null;
  idpUid?: string;
}
