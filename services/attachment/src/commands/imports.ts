import { newEvent, publishInTx } from '@wiki/events';
import type { AttachmentContext } from '../context.js';
import { deleteByImport } from '../db/attachments.js';
import { removeObject } from './attachments.js';

/**
 * DELETE /internal/attachments/import/{importId}: the files an import stored (POST
 * /internal/attachments with its importId), for the rollback of an import that failed or was
 * refused; also those of documents the import never got to make. The records and an
 * attachment.deleted each go in one transaction, then the objects (a failure is left to the
 * orphan sweep). Idempotent: a second call finds nothing. `actorId` is who the events name.
 */
export async function removeImport(ctx: AttachmentContext, importId: string, actorId: string): Promise<string[]> {
  const removed = await ctx.pool.transaction(async (tx) => {
    const rows = await deleteByImport(tx, importId);
    for (const row of rows)
      await publishInTx(
        tx,
        newEvent('attachment.deleted', {
          actorId,
          workspaceId: row.workspaceId,
          data: { id: row.id, documentId: row.documentId, workspaceId: row.workspaceId, storageKey: row.storageKey },
        }),
      );
    return rows;
  });
  for (const row of removed) await removeObject(ctx, row.storageKey);
  return removed.map((row) => row.id);
}
