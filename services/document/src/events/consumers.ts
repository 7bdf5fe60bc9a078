import type { DatabasePool, DatabaseTransactionConnection } from '@wiki/db';
import { type EventBus, type EventEnvelope, type Logger, type RunningConsumer, startConsumer } from '@wiki/events';
import { markThreadDeleted, setThreadOpen } from '../db/comment-threads.js';
import { purgeWorkspace } from '../db/documents.js';
import { upsertUser } from '../db/users.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuidOrNull = (value: unknown): string | null => (typeof value === 'string' && UUID.test(value) ? value : null);
const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** user.upserted → the users projection (createdByUser, lastEditedByUser, idp uid lookups). */
export async function applyUserEvent(event: EventEnvelope, tx: DatabaseTransactionConnection): Promise<void> {
  const data = event.data;
  const id = uuidOrNull(data.id);
  if (!id) throw new Error('malformed user.upserted event: no id');
  const user = {
    id,
    idpUid: str(data.idpUid),
    email: str(data.email),
    name: str(data.name) ?? '',
    avatarUrl: str(data.avatarUrl),
  };
  await upsertUser(tx, user, event.occurredAt);
}

export const THREAD_TYPES = [
  'comment.thread_created',
  'comment.thread_resolved',
  'comment.thread_reopened',
  'comment.thread_deleted',
];
const isThreadEvent = (type: string) => THREAD_TYPES.includes(type);

/** Whether a thread event leaves the thread open: its status when given, else what the type implies. */
function isOpen(event: EventEnvelope): boolean {
  const status = str(event.data.status)?.toUpperCase();
  if (status) return status === 'OPEN';
  return event.type !== 'comment.thread_resolved';
}

/** workspace.deleted → every document of the workspace goes (no document.deleted events: consumers purge on workspace.deleted themselves). */
export async function applyWorkspaceDeleted(
  event: EventEnvelope,
  tx: DatabaseTransactionConnection,
  logger: Logger,
): Promise<void> {
  const workspaceId = uuidOrNull(event.data.id) ?? uuidOrNull(event.workspaceId);
  if (!workspaceId) throw new Error('malformed workspace.deleted event');
  const removed = await purgeWorkspace(tx, workspaceId);
  logger.info({ workspaceId, removed }, 'purged the documents of a deleted workspace');
}

/** comment.thread_* → open threads per document (openCommentCount). Other comment.* events are not needed here. */
export async function applyThreadEvent(event: EventEnvelope, tx: DatabaseTransactionConnection): Promise<void> {
  if (!isThreadEvent(event.type)) return;
  const data = event.data;
  const threadId = uuidOrNull(data.threadId);
  if (!threadId) throw new Error(`malformed ${event.type} event: no threadId`);
  const documentId = uuidOrNull(data.documentId);
  if (event.type === 'comment.thread_deleted') {
    await markThreadDeleted(tx, threadId, documentId, event.occurredAt);
    return;
  }
  if (!documentId) throw new Error(`malformed ${event.type} event: no documentId`);
  await setThreadOpen(tx, threadId, documentId, isOpen(event), event.occurredAt);
}

export async function startDocumentConsumers(deps: {
  bus: EventBus;
  pool: DatabasePool;
  logger: Logger;
}): Promise<RunningConsumer[]> {
  const { bus, pool, logger } = deps;
  return Promise.all([
    startConsumer({ bus, pool, logger, name: 'document-users', types: ['user.upserted'], handle: applyUserEvent }),
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
