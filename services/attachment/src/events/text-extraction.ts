import type { Readable } from 'node:stream';
import type { DatabasePool } from '@wiki/db';
import { type EventBus, type Logger, newEvent, publishInTx, startConsumer } from '@wiki/events';
import type { ObjectStorage } from '@wiki/storage';
import { type ExtractionLimits, extractText } from '../commands/extract-text.js';
import { hasText, saveText } from '../db/attachment-texts.js';
import { findById } from '../db/attachments.js';
import { textFormatOf } from '../domain/text-formats.js';

/**
 * After an upload (attachment.uploaded), the file's text is extracted once (PDF, Word, HTML, text;
 * commands/extract-text.ts) and kept, and attachment.text_extracted tells search to fetch it. The
 * consumer is the job: JetStream redelivers it after a crash, and a file that already has its row
 * (text, or failed with its reason) is skipped, so a redelivery never extracts twice. A file
 * deleted meanwhile, or of another kind, is skipped too. Failing to read a file is kept as
 * 'failed' and logged, never retried forever; a storage or database outage fails the delivery,
 * which is retried.
 */
export function startTextExtraction(
  bus: EventBus,
  pool: DatabasePool,
  storage: ObjectStorage,
  limits: ExtractionLimits & { maxFileBytes: number },
  logger: Logger,
) {
  return startConsumer({
    bus,
    pool,
    name: 'attachment-texts',
    types: ['attachment.uploaded'],
    logger,
    // One file per transaction: an extraction may take up to its time limit, and the delivery's
    // deadline is extended while it runs.
    batchSize: 1,
    prefetch: 8,
    handle: async (event, tx) => {
      const row = await findById(tx, event.data.id);
      if (!row || (await hasText(tx, row.id))) return;
      const format = textFormatOf(row.mimeType, row.fileName);
      if (!format) return;
      if (row.fileSize > limits.maxFileBytes) return;
      const body = await storage.get(row.storageKey);
      if (!body) {
        logger.warn({ id: row.id, key: row.storageKey }, 'attachment object missing: no text extracted');
        return;
      }
      const started = Date.now();
      const extraction = await extractText(await bytesOf(body, limits.maxFileBytes), format, limits);
      if (extraction.outcome === 'failed')
        logger.warn({ id: row.id, format, reason: extraction.reason }, 'attachment text not extracted');
      else
        logger.info(
          { id: row.id, format, characters: extraction.text.length, ms: Date.now() - started },
          'attachment text extracted',
        );
      if (!(await saveText(tx, row.id, extraction)) || extraction.outcome === 'failed' || !extraction.text) return;
      await publishInTx(
        tx,
        newEvent('attachment.text_extracted', {
          actorId: event.actorId,
          workspaceId: row.workspaceId,
          data: {
            id: row.id,
            documentId: row.documentId,
            workspaceId: row.workspaceId,
            characters: extraction.text.length,
            truncated: extraction.truncated,
          },
        }),
      );
    },
  });
}

/** The object's bytes, refusing more than `max` (the row's size was checked; this guards the store). */
async function bytesOf(body: Readable, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > max) {
      body.destroy();
      throw new Error(`object larger than ${max} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
