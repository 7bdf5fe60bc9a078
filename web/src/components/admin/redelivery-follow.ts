import type { Page, WebhookDelivery } from '../../api/types';

/** How long a redelivery is followed at most (its round may end without an attempt: a refused target). */
export const FOLLOW_MS = 60_000;

/** A redelivery the list follows: until the log shows more attempts than the reopened row had. */
export interface Followed {
  attempts: number;
  until: number;
}

/** Whether the list still owes a followed redelivery its outcome. */
export function awaitsOutcome(
  list: Page<WebhookDelivery> | undefined,
  followed: ReadonlyMap<string, Followed>,
  now = Date.now(),
): boolean {
  for (const [id, f] of followed) {
    if (f.until < now) continue;
    const row = list?.content.find((d) => d.id === id);
    if (row && (row.status === 'pending' || row.attempts <= f.attempts)) return true;
  }
  return false;
}
