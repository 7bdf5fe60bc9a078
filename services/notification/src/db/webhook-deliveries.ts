import { type CommonQueryMethods, sql, z } from '@wiki/db';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const DeliveryRow = z.object({
  id: z.string(),
  webhookId: z.string(),
  eventType: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number(),
  responseStatus: z.number().nullable(),
  durationMs: z.number().nullable(),
  createdAt: z.string(),
  deliveredAt: z.string().nullable(),
  round: z.number(),
});
export type DeliveryRow = z.infer<typeof DeliveryRow>;

const deliveryColumns = sql.fragment`d.id, d.webhook_id AS "webhookId", d.event_type AS "eventType", d.status,
  d.attempts, d.response_status AS "responseStatus", d.duration_ms AS "durationMs", d.created_at AS "createdAt",
  d.delivered_at AS "deliveredAt", d.round`;

/** An event's deliveries to be made, one per webhook. */
export interface NewDeliveries {
  webhookIds: readonly string[];
  eventId: string;
  eventType: string;
  occurredAt: string;
  documentId: string | null;
  /** The event's JetStream stream sequence (null when not known: the event did not come from the stream). */
  streamSeq: number | null;
  body: string;
  retryWindowMs: number;
}

/**
 * One statement for all of an event's deliveries (an event may go to 20 webhooks): the new rows'
 * ids, leaving out webhooks that have one for this event already (a redelivered event).
 */
export async function insertDeliveries(db: CommonQueryMethods, d: NewDeliveries): Promise<readonly string[]> {
  if (d.webhookIds.length === 0) return [];
  return db.anyFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO webhook_deliveries
      (id, webhook_id, event_id, event_type, occurred_at, document_id, stream_seq, body, retry_until)
    SELECT gen_random_uuid(), w.id, ${d.eventId}, ${d.eventType}, ${d.occurredAt}, ${d.documentId}, ${d.streamSeq},
      ${d.body}, now() + make_interval(secs => ${d.retryWindowMs / 1000})
    FROM unnest(${sql.array(d.webhookIds, 'uuid')}) WITH ORDINALITY AS w(id, n)
    ORDER BY w.n
    ON CONFLICT (webhook_id, event_id) DO NOTHING
    RETURNING id`);
}

/** One page of a webhook's log, newest first. */
export async function deliveriesPage(
  db: CommonQueryMethods,
  webhookId: string,
  page: number,
  size: number,
): Promise<{ rows: readonly DeliveryRow[]; total: number }> {
  const total = await db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ${webhookId}`);
  const rows = await db.any(sql.type(DeliveryRow)`
    SELECT ${deliveryColumns} FROM webhook_deliveries d WHERE d.webhook_id = ${webhookId}
    ORDER BY d.created_at DESC, d.seq DESC LIMIT ${size} OFFSET ${page * size}`);
  return { rows, total };
}

export function deliveryOf(db: CommonQueryMethods, webhookId: string, id: string): Promise<DeliveryRow | null> {
  return db.maybeOne(sql.type(DeliveryRow)`
    SELECT ${deliveryColumns} FROM webhook_deliveries d WHERE d.id = ${id} AND d.webhook_id = ${webhookId}`);
}

/** What an attempt needs: the delivery, its body and its webhook. */
export const AttemptRow = DeliveryRow.extend({
  body: z.string(),
  retryUntil: z.string(),
  url: z.string(),
  secret: z.string(),
  enabled: z.boolean(),
  workspaceId: z.string(),
  documentId: z.string().nullable(),
  streamSeq: z.number().nullable(),
});
export type AttemptRow = z.infer<typeof AttemptRow>;

/**
 * The order of one webhook's deliveries about one document: by the events' stream sequence; rows
 * without one (made before it was stored) first, by occurred_at. A total order, so no two
 * deliveries can each wait for the other.
 */
const orderOf = {
  o: sql.fragment`(o.stream_seq IS NOT NULL, coalesce(o.stream_seq, 0), o.occurred_at, o.seq)`,
  d: sql.fragment`(d.stream_seq IS NOT NULL, coalesce(d.stream_seq, 0), d.occurred_at, d.seq)`,
};

/** The delivery with its webhook, or null when either is gone (a deleted webhook took its log). */
export function attemptOf(db: CommonQueryMethods, id: string): Promise<AttemptRow | null> {
  return db.maybeOne(sql.type(AttemptRow)`
    SELECT ${deliveryColumns}, d.body, d.retry_until AS "retryUntil", w.url, w.secret, w.enabled,
      w.workspace_id AS "workspaceId", d.document_id AS "documentId", d.stream_seq AS "streamSeq"
    FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
    WHERE d.id = ${id}`);
}

/** Whether an older delivery of the same webhook about the same document is still pending. */
export async function waitsForOlder(db: CommonQueryMethods, id: string): Promise<boolean> {
  return db.exists(sql.unsafe`
    SELECT 1 FROM webhook_deliveries d JOIN webhook_deliveries o
      ON o.webhook_id = d.webhook_id AND o.document_id = d.document_id
    WHERE d.id = ${id} AND o.status = 'pending' AND ${orderOf.o} < ${orderOf.d}`);
}

export interface AttemptOutcome {
  status: DeliveryStatus;
  responseStatus: number | null;
  durationMs: number | null;
  /** False for a delivery given up on without an attempt (its webhook was disabled). */
  attempted: boolean;
}

/** Records an attempt (or the end of a delivery) on a delivery that is still pending in this round. */
export async function recordAttempt(
  db: CommonQueryMethods,
  id: string,
  round: number,
  o: AttemptOutcome,
): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    UPDATE webhook_deliveries SET
      status = ${o.status},
      attempts = attempts + ${o.attempted ? 1 : 0},
      response_status = CASE WHEN ${o.attempted} THEN ${o.responseStatus}::int ELSE response_status END,
      duration_ms = CASE WHEN ${o.attempted} THEN ${o.durationMs}::int ELSE duration_ms END,
      last_attempt_at = CASE WHEN ${o.attempted} THEN now() ELSE last_attempt_at END,
      delivered_at = CASE WHEN ${o.status} = 'delivered' THEN now() ELSE delivered_at END
    WHERE id = ${id} AND round = ${round} AND status = 'pending'`);
  return result.rowCount > 0;
}

/**
 * Makes a finished delivery pending again for one more round (retried for `retryWindowMs` from
 * now): the row, 'pending' when it is still pending, null when there is no such delivery.
 */
export async function reopenDelivery(
  db: CommonQueryMethods,
  webhookId: string,
  id: string,
  retryWindowMs: number,
): Promise<DeliveryRow | 'pending' | null> {
  const row = await db.maybeOne(sql.type(DeliveryRow)`
    UPDATE webhook_deliveries d SET status = 'pending', round = round + 1,
      retry_until = now() + make_interval(secs => ${retryWindowMs / 1000})
    WHERE d.id = ${id} AND d.webhook_id = ${webhookId} AND d.status <> 'pending'
    RETURNING ${deliveryColumns}`);
  if (row) return row;
  return (await deliveryOf(db, webhookId, id)) ? 'pending' : null;
}

/** Pending deliveries whose job may have been lost (a crash between commit and enqueue). */
export function stalePending(
  db: CommonQueryMethods,
  olderThanMs: number,
  limit: number,
): Promise<readonly { id: string; round: number }[]> {
  return db.any(sql.type(z.object({ id: z.string(), round: z.number() }))`
    SELECT id, round FROM webhook_deliveries
    WHERE status = 'pending'
      AND coalesce(last_attempt_at, created_at) < now() - make_interval(secs => ${olderThanMs / 1000})
    ORDER BY created_at LIMIT ${limit}`);
}
