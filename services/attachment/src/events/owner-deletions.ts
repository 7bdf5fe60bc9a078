import type { DatabasePool } from '@wiki/db';
import { type EventBus, type Logger, startConsumer } from '@wiki/events';
import type { ObjectStorage } from '@wiki/storage';
import { removeDocuments, removeWorkspace } from '../db/attachments.js';

/**
 * document.deleted (every id of a cascade, possibly in parts) and workspace.deleted take their
 * attachments along (ARCHITECTURE 4): the rows go in the consumer's transaction, with tombstones
 * that stop an upload racing with the deletion, then the objects. Removing an object is
 * idempotent, so a redelivery after a failed commit repeats it harmlessly; one that fails is
 * logged and left to the orphan sweep, since its row is gone.
 */
export function startOwnerDeletions(bus: EventBus, pool: DatabasePool, storage: ObjectStorage, logger: Logger) {
  return startConsumer({
    bus,
    pool,
    name: 'attachment-deletions',
    types: ['document.deleted', 'workspace.deleted'],
    logger,
    handle: async (event, tx) => {
      const keys =
        event.type === 'document.deleted'
          ? await removeDocuments(tx, event.data.ids)
          : await removeWorkspace(tx, event.data.id);
      for (const key of keys) {
        try {
          await storage.delete(key);
        } catch (error) {
          logger.warn({ key, err: (error as Error).message }, 'object not removed; the orphan sweep will');
        }
      }
    },
  });
}
