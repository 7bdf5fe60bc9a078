import { type CommonQueryMethods, sql, z } from '@wiki/db';

/** The outbox rows as the relay sees them (its own queries; writers use outbox.ts). */

const outboxRow = z.object({ id: z.string(), type: z.string(), envelope: z.string() });
export type OutboxRow = z.infer<typeof outboxRow>;

/**
 * Locks the oldest pending rows of this database's outbox, in order, skipping rows set aside. The
 * caller publishes them and marks them sent (or sets them aside) before its transaction ends; rows
 * locked by another relay are skipped. The envelope comes as its JSON text, which is what gets
 * published: no parse and re-serialisation.
 */
export async function claimPending(tx: CommonQueryMethods, limit: number): Promise<readonly OutboxRow[]> {
  return tx.any(sql.type(outboxRow)`
    SELECT id, type, envelope::text AS envelope FROM event_outbox
    WHERE sent_at IS NULL AND failed_at IS NULL
    ORDER BY seq
    LIMIT ${limit}
    FOR UPDATE SKIP LOCKED
  `);
}

export async function markSent(tx: CommonQueryMethods, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.query(sql.unsafe`UPDATE event_outbox SET sent_at = now() WHERE id = ANY(${sql.array(ids, 'uuid')})`);
}

/** Takes a row out of the relay's way for good, keeping why (see docs/ARCHITECTURE-NOTES.md to re-send it). */
export async function setAside(tx: CommonQueryMethods, id: string, failure: string): Promise<void> {
  await tx.query(sql.unsafe`UPDATE event_outbox SET failed_at = now(), failure = ${failure} WHERE id = ${id}`);
}

/** Rows set aside because NATS refused them for good: a warning in the service's health details. */
export async function countSetAside(db: CommonQueryMethods): Promise<number> {
  return db.oneFirst(
    sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM event_outbox WHERE failed_at IS NOT NULL`,
  );
}

/** The creation time of the stream this database's relay last published to, as JetStream wrote it. */
export async function lastSeenStream(tx: CommonQueryMethods, stream: string): Promise<string | null> {
  return tx.maybeOneFirst(
    sql.type(z.object({ created: z.string() }))`SELECT created FROM event_stream_seen WHERE stream = ${stream}`,
  );
}

export async function rememberStream(tx: CommonQueryMethods, stream: string, created: string): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO event_stream_seen (stream, created) VALUES (${stream}, ${created})
    ON CONFLICT (stream) DO UPDATE SET created = EXCLUDED.created, seen_at = now()
  `);
}

/**
 * Makes pending again the rows sent since `since`: they went to a stream that is gone. Rows set
 * aside stay aside. Answers how many.
 */
export async function resendSince(tx: CommonQueryMethods, since: Date): Promise<number> {
  const result = await tx.query(sql.unsafe`
    UPDATE event_outbox SET sent_at = NULL
    WHERE sent_at IS NOT NULL AND sent_at >= ${since.toISOString()}::timestamptz AND failed_at IS NULL
  `);
  return result.rowCount;
}
