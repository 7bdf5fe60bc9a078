import type { DatabasePool, DatabaseTransactionConnection } from '@wiki/db';
import { type EventBus, type EventEnvelope, type Logger, startConsumer } from '@wiki/events';
import { countDocuments, uncountDocuments } from '../db/counted-documents.js';

export const DOCUMENT_COUNT_CONSUMER = 'workspace-document-count';
export const DOCUMENT_COUNT_TYPES = ['document.created', 'document.deleted', 'document.archived', 'document.restored'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The documents an event is about: `data.ids` (a cascade or a subtree) when given, else `data.id`. */
export function documentIdsOf(data: Record<string, unknown>): string[] {
  const ids = Array.isArray(data.ids) ? data.ids : [data.id];
  return [...new Set(ids.filter((id): id is string => typeof id === 'string' && UUID.test(id)))];
}

function isArchived(data: Record<string, unknown>): boolean {
  const flags = data.flags as Record<string, unknown> | undefined;
  return data.isArchived === true || flags?.isArchived === true;
}

/** Keeps workspaces.document_count equal to the number of live (not archived) documents. */
export async function applyDocumentEvent(event: EventEnvelope, tx: DatabaseTransactionConnection): Promise<void> {
  const data = event.data;
  const workspaceId = (typeof data.workspaceId === 'string' ? data.workspaceId : event.workspaceId) ?? null;
  const ids = documentIdsOf(data);
  switch (event.type) {
    case 'document.created':
      if (workspaceId && UUID.test(workspaceId) && !isArchived(data)) await countDocuments(tx, workspaceId, ids);
      return;
    case 'document.restored':
      if (workspaceId && UUID.test(workspaceId)) await countDocuments(tx, workspaceId, ids);
      return;
    case 'document.archived':
    case 'document.deleted':
      await uncountDocuments(tx, ids);
      return;
  }
}

export function startDocumentCountConsumer(deps: { bus: EventBus; pool: DatabasePool; logger: Logger }) {
  return startConsumer({
    ...deps,
    name: DOCUMENT_COUNT_CONSUMER,
    types: DOCUMENT_COUNT_TYPES,
    handle: applyDocumentEvent,
  });
}
