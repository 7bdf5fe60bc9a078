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

type CountChange = { kind: 'count'; workspaceId: string; ids: string[] } | { kind: 'uncount'; ids: string[] };

/** What an event does to the count, if anything. */
function changeOf(event: EventEnvelope): CountChange | null {
  const data = event.data;
  const workspaceId = (typeof data.workspaceId === 'string' ? data.workspaceId : event.workspaceId) ?? null;
  const ids = documentIdsOf(data);
  const validWorkspace = workspaceId !== null && UUID.test(workspaceId);
  switch (event.type) {
    case 'document.created':
      return validWorkspace && !isArchived(data) ? { kind: 'count', workspaceId, ids } : null;
    case 'document.restored':
      return validWorkspace ? { kind: 'count', workspaceId, ids } : null;
    case 'document.archived':
    case 'document.deleted':
      return { kind: 'uncount', ids };
    default:
      return null;
  }
}

async function applyChange(tx: DatabaseTransactionConnection, change: CountChange): Promise<void> {
  if (change.kind === 'count') await countDocuments(tx, change.workspaceId, change.ids);
  else await uncountDocuments(tx, change.ids);
}

/**
 * Keeps workspaces.document_count equal to the number of live (not archived) documents. Events in
 * a row that change the same workspace the same way are merged into one statement: a burst of
 * creations costs one query, and the order of counting and uncounting is kept.
 */
export async function applyDocumentEvents(events: EventEnvelope[], tx: DatabaseTransactionConnection): Promise<void> {
  let run: CountChange | null = null;
  for (const event of events) {
    const change = changeOf(event);
    if (!change) continue;
    if (
      run &&
      run.kind === change.kind &&
      (run.kind === 'uncount' || (change.kind === 'count' && run.workspaceId === change.workspaceId))
    ) {
      run.ids.push(...change.ids);
      continue;
    }
    if (run) await applyChange(tx, run);
    run = change;
  }
  if (run) await applyChange(tx, run);
}

export const applyDocumentEvent = (event: EventEnvelope, tx: DatabaseTransactionConnection) =>
  applyDocumentEvents([event], tx);

export function startDocumentCountConsumer(deps: { bus: EventBus; pool: DatabasePool; logger: Logger }) {
  return startConsumer({
    ...deps,
    name: DOCUMENT_COUNT_CONSUMER,
    types: DOCUMENT_COUNT_TYPES,
    handle: applyDocumentEvent,
    handleBatch: applyDocumentEvents,
  });
}
