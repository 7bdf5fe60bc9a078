import { type CommonQueryMethods, sql } from '@wiki/db';
import type { DocumentSettings } from '../settings.js';

/**
 * Hands the service's revision settings to the history trigger (migrations/0009_revisions.sql),
 * which reads its one row of revision_settings on every change. Written at start by every replica:
 * replicas are meant to share one configuration, and the last to start wins if they do not.
 */
export async function writeRevisionSettings(
  db: CommonQueryMethods,
  { intervalS, history }: DocumentSettings['revisions'],
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO revision_settings ("only", interval_s, history) VALUES (true, ${intervalS}, ${history})
    ON CONFLICT ("only") DO UPDATE SET interval_s = EXCLUDED.interval_s, history = EXCLUDED.history
    WHERE (revision_settings.interval_s, revision_settings.history) IS DISTINCT FROM (EXCLUDED.interval_s, EXCLUDED.history)`);
}
