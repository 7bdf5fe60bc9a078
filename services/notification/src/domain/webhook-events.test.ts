import { describe, expect, it } from 'vitest';
import { filterProblem, WEBHOOK_EVENT_TYPES, webhookWants } from './webhook-events.js';

describe('webhook event filters', () => {
  it('take catalogue types, groups of them and * alone', () => {
    for (const ok of ['*', 'document.*', 'comment.added', 'member.*', 'attachment.uploaded']) {
      expect(filterProblem(ok), ok).toBeNull();
    }
    for (const bad of ['document.nope', 'nope.*', 'user.*', 'user.upserted', 'document.>', '**', 'document', '']) {
      expect(filterProblem(bad), bad).not.toBeNull();
    }
  });

  it('match by name, group or *, and never a user event', () => {
    expect(webhookWants(['document.*'], 'document.updated')).toBe(true);
    expect(webhookWants(['document.*'], 'comment.added')).toBe(false);
    expect(webhookWants(['comment.added'], 'comment.added')).toBe(true);
    expect(webhookWants(['comment.added'], 'comment.edited')).toBe(false);
    expect(webhookWants(['*'], 'workspace.updated')).toBe(true);
    expect(webhookWants(['*'], 'user.upserted')).toBe(false);
    expect(WEBHOOK_EVENT_TYPES).not.toContain('user.preferences_changed');
  });
});
