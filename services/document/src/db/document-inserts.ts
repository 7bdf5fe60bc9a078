import { createBatcher } from '@wiki/db';
import { checkEnvelopeSize } from '@wiki/events';
import type { DocumentDetail } from './documents.js';
import type { NewDocumentWithEvent, PreparedStatements } from './prepared-statements.js';

/**
 * Inserts one document with its event and answers it as a GET would; null when its parent did not
 * qualify (see INSERT_DOCUMENTS).
 */
export type InsertDocument = (entry: NewDocumentWithEvent) => Promise<DocumentDetail | null>;

/**
 * Creations that arrive while others are being written go to the database together, as one
 * statement (group commit). Batches are capped by count and by text size, so one batch never
 * becomes a message of hundreds of megabytes. The statement bypasses the kit's pool (it is a
 * prepared statement on pg), so it wakes the outbox relay itself once it has committed.
 * Each document.created envelope is checked against the event cap (libs/events) on the way in.
 */
export function batchedDocumentInserts(prepared: PreparedStatements, wakeRelay: () => void): InsertDocument {
  const batcher = createBatcher<NewDocumentWithEvent, DocumentDetail | null>(
    async (entries) => {
      const inserted = await prepared.insertDocuments(entries);
      if (inserted.size > 0) wakeRelay();
      return entries.map((e) => inserted.get(e.doc.id) ?? null);
    },
    {
      maxItems: 100,
      concurrency: 1,
      maxWeight: 4 * 1024 * 1024,
      weightOf: (e) => e.doc.content.length + e.doc.plainText.length,
    },
  );
  return async (entry) => {
    // Refused before it joins a batch: an oversized event fails its own creation, not the others'.
    checkEnvelopeSize(entry.envelope, UPDATED_AT_ROOM);
    return batcher.submit(entry);
  };
}

/** The statement stamps data.updatedAt (an ISO timestamp) into the envelope after the check. */
const UPDATED_AT_ROOM = 64;
