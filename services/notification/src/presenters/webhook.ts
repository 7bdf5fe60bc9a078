import type { DeliveryRow } from '../db/webhook-deliveries.js';
import type { WebhookRow } from '../db/webhooks.js';

/** A webhook (ARCHITECTURE 5.18): never its secret, which only the creating answer holds. */
export function presentWebhook(row: WebhookRow) {
  return { id: row.id, url: row.url, events: row.events, enabled: row.enabled, createdAt: row.createdAt };
}

export function presentDelivery(row: DeliveryRow) {
  return {
    id: row.id,
    event: row.eventType,
    status: row.status,
    attempts: row.attempts,
    responseStatus: row.responseStatus,
    durationMs: row.durationMs,
    createdAt: row.createdAt,
    deliveredAt: row.deliveredAt,
  };
}
