import { AsyncResource } from 'node:async_hooks';
import type { DatabasePool } from '@wiki/db';
import { type EventBus, type EventFor, type Logger, startConsumer } from '@wiki/events';
import { fetchAttachmentText, type ServiceClient } from '@wiki/service-client';
import type { IndexedPassage, SearchEngine } from '../engines/engine.js';

const TYPES = [
  'comment.added',
  'comment.edited',
  'comment.deleted',
  'comment.thread_deleted',
  'attachment.text_extracted',
  'attachment.deleted',
] as const;

/** What the passage indexer follows, parsed against the event contracts of @wiki/events. */
export type PassageEvent = EventFor<(typeof TYPES)[number]>;

/** Applied upserts first, then removals: a comment added and deleted in one batch ends removed. */
interface Writes {
  upserts: IndexedPassage[];
  removals: { ids: string[]; threadIds: string[] };
}

/**
 * Turns comment and attachment events into passage writes, each at the event's time as its
 * version (a redelivered or late event is a no-op against a newer write). A comment's text comes
 * with its event; an attachment's from the attachment service, which extracted and keeps it.
 */
async function writesOf(events: readonly PassageEvent[], peers: ServiceClient, logger: Logger): Promise<Writes> {
  const writes: Writes = { upserts: [], removals: { ids: [], threadIds: [] } };
  for (const event of events) {
    const version = Date.parse(event.occurredAt);
    switch (event.type) {
      case 'comment.added':
      case 'comment.edited': {
        const d = event.data;
        // Events written before comments carried their text: a reindex indexes those comments.
        if (d.text === undefined) break;
        writes.upserts.push({
          id: d.commentId,
          kind: 'comment',
          documentId: d.documentId,
          workspaceId: d.workspaceId,
          threadId: d.threadId,
          text: d.text,
          version,
        });
        break;
      }
      case 'comment.deleted':
        writes.removals.ids.push(event.data.commentId);
        break;
      case 'comment.thread_deleted':
        writes.removals.threadIds.push(event.data.threadId);
        break;
      case 'attachment.text_extracted': {
        const found = await fetchAttachmentText(peers, event.data.id);
        if (!found) {
          // Deleted since: its attachment.deleted follows (or came first and left a tombstone).
          logger.info({ attachmentId: event.data.id, eventId: event.id }, 'attachment gone before its text was read');
          break;
        }
        writes.upserts.push({
          id: found.id,
          kind: 'attachment',
          documentId: found.documentId,
          workspaceId: found.workspaceId,
          threadId: null,
          text: found.text,
          version,
        });
        break;
      }
      case 'attachment.deleted':
        writes.removals.ids.push(event.data.id);
        break;
    }
  }
  return writes;
}

export interface PassageIndexerDeps {
  bus: EventBus;
  pool: DatabasePool;
  engine: SearchEngine;
  peers: ServiceClient;
  logger: Logger;
}

/** As in document-indexer.ts: the engine's writes run outside the consumer's transaction. */
const outsideTransactions = new AsyncResource('search-passage-writes');

/**
 * The consumer `search-passages`: keeps the comments' and attachments' texts in the index
 * (ARCHITECTURE 5.20). Removals of documents and workspaces remove their passages with them
 * (the document indexer's engine.remove / removeWorkspace).
 */
export function startPassageIndexer({ bus, pool, engine, peers, logger }: PassageIndexerDeps) {
  const apply = (events: readonly PassageEvent[]) =>
    outsideTransactions.runInAsyncScope(async () => {
      const writes = await writesOf(events, peers, logger);
      await engine.upsertPassages(writes.upserts);
      await engine.removePassages(writes.removals);
    });
  return startConsumer({
    bus,
    pool,
    name: 'search-passages',
    types: TYPES,
    handle: (event) => apply([event]),
    handleBatch: (events) => apply(events),
    logger,
  });
}
