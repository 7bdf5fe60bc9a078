import { describe, expect, it } from 'vitest';
import type { Page, WebhookDelivery } from '../../api/types';
import { awaitsOutcome, type Followed } from './redelivery-follow';

const row = (status: WebhookDelivery['status'], attempts: number): WebhookDelivery => ({
  id: 'd1',
  event: 'document.created',
  status,
  attempts,
  responseStatus: status === 'delivered' ? 200 : 500,
  durationMs: 3,
  createdAt: '2026-11-29T10:00:00.000Z',
  deliveredAt: status === 'delivered' ? '2026-11-29T10:00:01.000Z' : null,
});
const list = (d: WebhookDelivery): Page<WebhookDelivery> => ({
  content: [d],
  totalElements: 1,
  totalPages: 1,
  number: 0,
  size: 20,
});
const following = (attempts: number, until = 10_000) => new Map<string, Followed>([['d1', { attempts, until }]]);

describe('following a redelivery in the deliveries list', () => {
  it('waits while the row is pending or shows no attempt beyond the reopened one', () => {
    expect(awaitsOutcome(list(row('pending', 1)), following(1), 0)).toBe(true);
    // A read that set out before the redelivery was committed: still the old failure.
    expect(awaitsOutcome(list(row('failed', 1)), following(1), 0)).toBe(true);
  });

  it('is done once the new attempt shows, whatever its outcome', () => {
    expect(awaitsOutcome(list(row('delivered', 2)), following(1), 0)).toBe(false);
    expect(awaitsOutcome(list(row('failed', 2)), following(1), 0)).toBe(false);
  });

  it('gives up after its time, and on a row no longer listed', () => {
    expect(awaitsOutcome(list(row('failed', 1)), following(1, 10_000), 10_001)).toBe(false);
    expect(awaitsOutcome(undefined, following(1), 0)).toBe(false);
    expect(awaitsOutcome(list({ ...row('failed', 1), id: 'other' }), following(1), 0)).toBe(false);
  });
});
