import { AsyncResource } from 'node:async_hooks';
import type { DatabasePool } from '@wiki/db';
import { type EventBus, type EventFor, type Logger, startConsumer } from '@wiki/events';
import { fetchDocumentText, type ServiceClient, wholePlainText } from '@wiki/service-client';
import type { DocumentPatch, IndexedDocument, SearchEngine } from '../engines/engine.js';
import { indexedDocument } from '../engines/indexed-document.js';

const TYPES = ['document.*', 'workspace.deleted'] as const;

/** What the indexer follows, parsed against the event contracts of @wiki/events. */
export type IndexedEvent = EventFor<(typeof TYPES)[number]>;

/** The writes a batch of events comes to, applied in this order (see applyEvents). */
interface Writes {
  upserts: IndexedDocument[];
  patches: DocumentPatch[];
  removals: string[];
  workspaces: string[];
}

/**
 * Turns document events into index writes. Every write carries the event's time as its version, so
 * a redelivered or late event is a no-op against what a newer one wrote (the engine compares). The
 * text of created/updated comes whole: when the event's was cut, from the document service.
 */
async function writesOf(events: readonly IndexedEvent[], peers: ServiceClient, logger: Logger): Promise<Writes> {
  const writes: Writes = { upserts: [], patches: [], removals: [], workspaces: [] };
  for (const event of events) {
    const version = Date.parse(event.occurredAt);
    switch (event.type) {
      case 'document.created':
      case 'document.updated': {
        const d = event.data;
        const plainText = await wholePlainText(peers, d);
        if (plainText === null) {
          // Cut, and the document is gone since: its document.deleted follows.
          logger.info({ documentId: d.id, eventId: event.id }, 'document gone before its whole text was read');
          break;
        }
        writes.upserts.push(indexedDocument({ ...d, plainText, archived: d.isArchived }, version));
        break;
      }
      case 'document.moved':
        // A move changes no document's updatedAt.
        writes.patches.push({ id: event.data.id, parentId: event.data.parentId, version });
        break;
      case 'document.archived':
      case 'document.restored': {
        const archived = event.type === 'document.archived';
        // The document service stamps every document of the subtree with the same time (one transaction).
        const updatedAt = Date.parse(event.data.updatedAt);
        for (const id of event.data.ids) writes.patches.push({ id, archived, updatedAt, version });
        break;
      }
      case 'document.deleted':
        writes.removals.push(...event.data.ids);
        break;
      case 'workspace.deleted':
        writes.workspaces.push(event.data.id);
        break;
      default:
        // published / unpublished change nothing search shows.
        break;
    }
  }
  return writes;
}

/**
 * Upserts before patches: a document created and archived in one batch is indexed, then hidden.
 * Versions make the order of upserts and patches otherwise irrelevant; removals and purges last.
 * A patch of a document the index does not hold yet (its creation event failed and waits for a
 * retry, or is older than the stream) indexes the document whole as the document service has it
 * now, with the patch's version: dropping the patch would let the late creation show an archived
 * document, or one in its old place.
 */
async function applyWrites(engine: SearchEngine, writes: Writes, peers: ServiceClient): Promise<void> {
  await engine.upsert(writes.upserts);
  const unknown = await engine.patch(writes.patches);
  if (unknown.length > 0) await engine.upsert(await wholeDocuments(unknown, writes.patches, peers));
  await engine.remove(writes.removals);
  for (const workspaceId of writes.workspaces) await engine.removeWorkspace(workspaceId);
}

/** The documents behind patches the index had no document for, as they are now (gone ones left out). */
async function wholeDocuments(
  ids: readonly string[],
  patches: readonly DocumentPatch[],
  peers: ServiceClient,
): Promise<IndexedDocument[]> {
  const versions = new Map<string, number>();
  for (const p of patches) versions.set(p.id, Math.max(versions.get(p.id) ?? 0, p.version));
  const documents: IndexedDocument[] = [];
  for (const id of new Set(ids)) {
    const doc = await fetchDocumentText(peers, id);
    if (!doc) continue; // deleted since: its document.deleted removes it
    documents.push(indexedDocument(doc, versions.get(id) ?? Date.parse(doc.updatedAt)));
  }
  return documents;
}

export interface IndexerDeps {
  bus: EventBus;
  pool: DatabasePool;
  engine: SearchEngine;
  peers: ServiceClient;
  logger: Logger;
}

/**
 * The engine is a store of its own, even when it lives in this database: its writes run outside the
 * consumer's transaction (which only records the events as consumed). slonik refuses a query on
 * another connection inside a transaction's async context, so they run in the context this
 * resource captured when the module loaded, where no transaction is open. A commit that fails
 * after the engine wrote means a redelivery that writes the same versions again: a no-op.
 */
const outsideTransactions = new AsyncResource('search-engine-writes');

/** The consumer `search-documents`: keeps the index current from document events (issue 12 point 1). */
export function startDocumentIndexer({ bus, pool, engine, peers, logger }: IndexerDeps) {
  const apply = (events: readonly IndexedEvent[]) =>
    outsideTransactions.runInAsyncScope(async () => applyWrites(engine, await writesOf(events, peers, logger), peers));
  return startConsumer({
    bus,
    pool,
    name: 'search-documents',
    types: TYPES,
    handle: (event) => apply([event]),
    handleBatch: (events) => apply(events),
    logger,
  });
}
