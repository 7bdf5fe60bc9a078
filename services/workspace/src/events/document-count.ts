import type { DatabasePool, DatabaseTransactionConnection } from '@wiki/db';
import { type EventBus, type Logger, startConsumer, type TypedEvent } from '@wiki/events';
import { countDocuments, uncountDocuments } from '../db/counted-documents.js';

export const DOCUMENT_COUNT_CONSUMER = 'workspace-document-count';
export const DOCUMENT_COUNT_TYPES = [
  'document.created',
  'document.deleted',
  'document.archived',
  'document.restored',
] as const;

/** The events the count follows, their data parsed against the contracts of @wiki/events. */
export type DocumentCountEvent = TypedEvent<(typeof DOCUMENT_COUNT_TYPES)[number]>;

/** The documents an event is about: `data.ids` (a cascade or a subtree; once each), for a creation `data.id`. */
export function documentIdsOf(event: DocumentCountEvent): string[] {
  return event.type === 'document.created' ? [event.data.id] : [...new Set(event.data.ids)];
}

type CountChange = { kind: 'count'; workspaceId: string; ids: string[] } | { kind: 'uncount'; ids: string[] };

/** What an event does to the count, if anything. */
function changeOf(event: DocumentCountEvent): CountChange | null {
  const ids = documentIdsOf(event);
  switch (event.type) {
    case 'document.created':
      return event.data.isArchived ? null : { kind: 'count', workspaceId: event.data.workspaceId, ids };
    case 'document.restored':
      return { kind: 'count', workspaceId: event.data.workspaceId, ids };
    case 'document.archived':
    case 'document.deleted':
      return { kind: 'uncount', ids };
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
export async function applyDocumentEvents(
  events: DocumentCountEvent[],
  tx: DatabaseTransactionConnection,
): Promise<void> {
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

export const applyDocumentEvent = (event: DocumentCountEvent, tx: DatabaseTransactionConnection) =>
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
