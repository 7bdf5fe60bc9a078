import type { DatabasePool, DatabaseTransactionConnection } from '@wiki/db';
import { type EventBus, type EventFor, type Logger, startConsumer } from '@wiki/events';
import { markDocumentsDeleted, markWorkspaceDeleted, upsertDocument } from '../db/documents.js';
import { deleteThreadsOfDocuments, deleteThreadsOfWorkspace } from '../db/threads.js';

/**
 * Only the events that change what the projection holds (a document's existence, its workspace, its
 * deletion). A title or content edit, a move, an archive or a publish leaves it as it is, and a
 * document the projection never heard of is looked up on first use (projections/documents.ts), so
 * applying them cost a transaction per edit (an inbox row and a row lock) for nothing. The consumer
 * still hears them (NATS 2.9 gives it one filter subject, `<prefix>.>` for these three) and
 * acknowledges them without touching the database.
 */
const DOCUMENT_TYPES = ['document.created', 'document.deleted', 'workspace.deleted'] as const;

/** What the projection follows, parsed against the event contracts of @wiki/events. */
export type DocumentProjectionEvent = EventFor<(typeof DOCUMENT_TYPES)[number]>;

/**
 * Keeps the document projection current and purges what hangs off removed documents: a deleted
 * document (or every document of a deleted workspace) takes its threads and their comments along.
 * No thread_deleted events go out for these purges: every consumer of ours also hears the
 * document.deleted / workspace.deleted that caused them.
 */
export async function applyDocumentEvent(
  event: DocumentProjectionEvent,
  tx: DatabaseTransactionConnection,
  logger: Logger,
): Promise<void> {
  if (event.type === 'workspace.deleted') {
    const workspaceId = event.data.id;
    await markWorkspaceDeleted(tx, workspaceId);
    const purged = await deleteThreadsOfWorkspace(tx, workspaceId);
    if (purged) logger.info({ workspaceId, threads: purged }, 'purged comment threads of a deleted workspace');
    return;
  }
  if (event.type === 'document.deleted') {
    // A cascade names every removed document in `ids`.
    const ids = [...new Set(event.data.ids)];
    await markDocumentsDeleted(tx, ids, event.data.workspaceId);
    const purged = await deleteThreadsOfDocuments(tx, ids);
    if (purged) logger.info({ documentIds: ids, threads: purged }, 'purged comment threads of deleted documents');
    return;
  }
  // document.created: remember the new document (saves a look-up later).
  await upsertDocument(tx, { id: event.data.id, workspaceId: event.data.workspaceId }, true);
}

export function startDocumentProjection(bus: EventBus, pool: DatabasePool, logger: Logger) {
  return startConsumer({
    bus,
    pool,
    name: 'comment-documents',
    types: DOCUMENT_TYPES,
    handle: (event, tx) => applyDocumentEvent(event, tx, logger),
    logger,
  });
}
