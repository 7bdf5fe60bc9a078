import type { DatabasePool, DatabaseTransactionConnection } from '@wiki/db';
import { type EventBus, type EventEnvelope, type Logger, startConsumer } from '@wiki/events';
import { markDocumentsDeleted, markWorkspaceDeleted, upsertDocument } from '../db/documents.js';
import { deleteThreadsOfDocuments, deleteThreadsOfWorkspace } from '../db/threads.js';

interface DocumentEventData {
  id?: string;
  ids?: string[];
  workspaceId?: string;
}

/** The document ids a document.deleted event removed (a cascade names them all in `ids`). */
export function deletedIds(data: DocumentEventData): string[] {
  const ids = Array.isArray(data.ids) && data.ids.length > 0 ? data.ids : data.id ? [data.id] : [];
  return [...new Set(ids.filter((id): id is string => typeof id === 'string'))];
}

/**
 * Keeps the document projection current and purges what hangs off removed documents: a deleted
 * document (or every document of a deleted workspace) takes its threads and their comments along.
 * No thread_deleted events go out for these purges: every consumer of ours also hears the
 * document.deleted / workspace.deleted that caused them.
 */
export async function applyDocumentEvent(
  event: EventEnvelope,
  tx: DatabaseTransactionConnection,
  logger: Logger,
): Promise<void> {
  const data = event.data as DocumentEventData;
  if (event.type === 'workspace.deleted') {
    const workspaceId = data.id ?? event.workspaceId;
    if (!workspaceId) throw new Error('malformed workspace.deleted event');
    await markWorkspaceDeleted(tx, workspaceId);
    const purged = await deleteThreadsOfWorkspace(tx, workspaceId);
    if (purged) logger.info({ workspaceId, threads: purged }, 'purged comment threads of a deleted workspace');
    return;
  }
  if (event.type === 'document.deleted') {
    const ids = deletedIds(data);
    if (ids.length === 0) throw new Error('malformed document.deleted event');
    await markDocumentsDeleted(tx, ids, data.workspaceId ?? event.workspaceId);
    const purged = await deleteThreadsOfDocuments(tx, ids);
    if (purged) logger.info({ documentIds: ids, threads: purged }, 'purged comment threads of deleted documents');
    return;
  }
  // Any other document event names a live document: remember it (saves a look-up later).
  const workspaceId = data.workspaceId ?? event.workspaceId;
  if (data.id && workspaceId) await upsertDocument(tx, { id: data.id, workspaceId }, true);
}

export function startDocumentProjection(bus: EventBus, pool: DatabasePool, logger: Logger) {
  return startConsumer({
    bus,
    pool,
    name: 'comment-documents',
    types: ['document.*', 'workspace.deleted'],
    handle: (event, tx) => applyDocumentEvent(event, tx, logger),
    logger,
  });
}
