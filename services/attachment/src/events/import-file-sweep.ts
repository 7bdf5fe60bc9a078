import { type DatabasePool, withAdvisoryLock } from '@wiki/db';
import { type Logger, newEvent, publishInTx } from '@wiki/events';
import { startPeriodicJob } from '@wiki/service';
import { removeObject } from '../commands/attachments.js';
import { documentOf } from '../commands/documents.js';
import type { AttachmentContext } from '../context.js';
import { deleteByIds, settleImportFiles, staleImportFiles } from '../db/attachments.js';

/** An import is over within this: its rollback has come by then, or never will. */
export const IMPORT_FILE_GRACE_MS = 24 * 60 * 60_000;
const INTERVAL_MS = 60 * 60_000;
const BATCH = 100;
/** One replica at a time (a Postgres advisory lock in this service's database). */
export const IMPORT_SWEEP_LOCK = 'attachment.import-file-sweep';

type SweepContext = Pick<AttachmentContext, 'pool' | 'storage' | 'peers' | 'logger'>;

export interface ImportSweepResult {
  /** Files whose document was never made (or is gone): removed. */
  removed: number;
  /** Files whose document exists: theirs for good (their import id is dropped, no rollback reaches them now). */
  settled: number;
}

/**
 * Files an import stored (POST /internal/attachments) more than a day ago and still marked with
 * their import: a job that died for good without its rollback. A file whose document exists in
 * its workspace is settled; one whose document was never made (or is gone) is removed, record and
 * attachment.deleted first, then the object. The document service is asked per document; when it
 * cannot answer the run fails and the next one tries again. Null: another replica was sweeping.
 */
export async function sweepImportFiles(
  ctx: SweepContext,
  options: { graceMs?: number; now?: Date } = {},
): Promise<ImportSweepResult | null> {
  const cutoff = new Date((options.now ?? new Date()).getTime() - (options.graceMs ?? IMPORT_FILE_GRACE_MS));
  const swept = await withAdvisoryLock(ctx.pool, IMPORT_SWEEP_LOCK, async () => {
    const result: ImportSweepResult = { removed: 0, settled: 0 };
    for (;;) {
      const rows = await staleImportFiles(ctx.pool, cutoff.toISOString(), BATCH);
      if (rows.length === 0) return result;
      const keep: string[] = [];
      const drop: string[] = [];
      for (const row of rows) {
        const doc = await documentOf(ctx, row.documentId);
        (doc && doc.workspaceId === row.workspaceId ? keep : drop).push(row.id);
      }
      result.settled += await settleImportFiles(ctx.pool, keep);
      result.removed += await removeFiles(ctx, drop);
      // Every row of the batch was settled or removed, so the next batch is new rows.
    }
  });
  return swept ? swept.value : null;
}

async function removeFiles(ctx: SweepContext, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await ctx.pool.transaction(async (tx) => {
    const removed = await deleteByIds(tx, ids);
    for (const row of removed)
      await publishInTx(
        tx,
        newEvent('attachment.deleted', {
          actorId: null,
          workspaceId: row.workspaceId,
          data: { id: row.id, documentId: row.documentId, workspaceId: row.workspaceId, storageKey: row.storageKey },
        }),
      );
    return removed;
  });
  for (const row of rows) await removeObject(ctx, row.storageKey);
  return rows.length;
}

/** The periodic job: soon after start, then hourly. */
export function startImportFileSweeper(ctx: SweepContext & { pool: DatabasePool }, logger: Logger) {
  return startPeriodicJob(
    'attachment import file sweep',
    async () => {
      const r = await sweepImportFiles(ctx);
      if (r && (r.removed > 0 || r.settled > 0)) logger.info({ ...r }, 'swept the files of finished imports');
    },
    INTERVAL_MS,
    logger,
  );
}
