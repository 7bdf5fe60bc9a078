import type { DatabasePool, DatabaseTransactionConnection } from '@wiki/db';
import {
  type EventBus,
  type EventFor,
  type Logger,
  type RunningConsumer,
  startConsumer,
  type TypedEvent,
} from '@wiki/events';
import { markThreadDeleted, setThreadOpen } from '../db/comment-threads.js';
import { purgeWorkspace } from '../db/documents.js';

/** workspace.deleted → every document of the workspace goes (no document.deleted events: consumers purge on workspace.deleted themselves). */
export async function applyWorkspaceDeleted(
  event: TypedEvent<'workspace.deleted'>,
  tx: DatabaseTransactionConnection,
  logger: Logger,
): Promise<void> {
  const workspaceId = event.data.id;
  const removed = await purgeWorkspace(tx, workspaceId);
  logger.info({ workspaceId, removed }, 'purged the documents of a deleted workspace');
}

/** comment.thread_* → open threads per document (openCommentCount). Other comment.* events are not needed here. */
export async function applyThreadEvent(event: EventFor<'comment.*'>, tx: DatabaseTransactionConnection): Promise<void> {
  switch (event.type) {
    case 'comment.thread_deleted':
      await markThreadDeleted(tx, event.data.threadId, event.data.documentId, event.occurredAt);
      return;
    case 'comment.thread_created':
    case 'comment.thread_resolved':
    case 'comment.thread_reopened': {
      const { threadId, documentId, status } = event.data;
      await setThreadOpen(tx, threadId, documentId, status === 'open', event.occurredAt);
      return;
    }
  }
}

export async function startDocumentConsumers(deps: {
  bus: EventBus;
  pool: DatabasePool;
  logger: Logger;
}): Promise<RunningConsumer[]> {
  const { bus, pool, logger } = deps;
  return Promise.all([
    // One event pattern per consumer: NATS 2.9 gives a durable a single filter subject, and a
    // consumer of several patterns would be sent every event of the system only to skip most.
    startConsumer({
      bus,
      pool,
      logger,
      name: 'document-comment-threads',
      types: ['comment.*'],
      handle: applyThreadEvent,
    }),
    startConsumer({
      bus,
      pool,
      logger,
      name: 'document-workspace-purge',
      types: ['workspace.deleted'],
      handle: (event, tx) => applyWorkspaceDeleted(event, tx, logger),
    }),
  ]);
}
