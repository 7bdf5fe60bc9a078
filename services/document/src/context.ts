import type { DatabasePool } from '@wiki/db';
import type { MembershipAccess, UsersProjection } from '@wiki/projections';
import type { InsertDocument } from './db/document-inserts.js';
import type { PreparedStatements } from './db/prepared-statements.js';
import type { ListAnswers } from './queries/list-answers.js';
import type { TreeAnswer } from './queries/tree-answers.js';
import type { DocumentSettings } from './settings.js';

/** What commands and queries run against; built once per app. */
export interface DocumentContext {
  /** The service's own settings (settings.ts). */
  settings: DocumentSettings;
  /** The service kit's pool: a transaction that wrote events wakes the outbox relay on commit. */
  pool: DatabasePool;
  /** The hottest read and write, as prepared statements on their own pool (db/prepared-statements.ts). */
  prepared: PreparedStatements;
  /** The workspace of a document, remembered (db/workspace-of.ts). */
  workspaceOf(documentId: string): Promise<string | null>;
  /** The tree answer of a workspace, remembered until its documents change (queries/tree-answers.ts). */
  treeAnswer(workspaceId: string, acceptsGzip?: boolean): Promise<TreeAnswer>;
  /** Root lists, children and breadcrumbs, remembered until the workspace's documents change (queries/list-answers.ts). */
  lists: ListAnswers;
  /** Wakes the outbox relay after a prepared statement (not the kit's pool) committed events. */
  wakeRelay(): void;
  /** Creations, written in batches (db/document-inserts.ts). */
  insertDocument: InsertDocument;
  membership: MembershipAccess;
  /** Names for createdByUser/lastEditedByUser and the collab server's idp uids (libs/projections). */
  users: UsersProjection;
}

/** The signed-in caller (libs/auth). */
export type { Actor } from '@wiki/auth';
