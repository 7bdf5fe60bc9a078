import type { DatabasePool, DatabaseTransactionConnection } from '@wiki/db';
import {
  type EventBus,
  type EventFor,
  type Logger,
  liveSubject,
  type RunningConsumer,
  startConsumer,
  THREAD_COUNTS_TOPIC,
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

/**
 * Tells the notification replicas that the trees of these events' workspaces show new counts, once
 * they are committed: a page told of the comment event itself could read the tree before this
 * service has counted it, and would then show the old count until something else changed.
 */
export function announceThreadCounts(bus: EventBus, events: readonly EventFor<'comment.*'>[]): void {
  const workspaces = new Set<string>();
  for (const event of events) if (event.type.startsWith('comment.thread_')) workspaces.add(event.data.workspaceId);
  for (const workspaceId of workspaces)
    bus.nc.publish(liveSubject(bus.prefix, THREAD_COUNTS_TOPIC), JSON.stringify({ workspaceId }));
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
      applied: (events) => announceThreadCounts(bus, events),
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
