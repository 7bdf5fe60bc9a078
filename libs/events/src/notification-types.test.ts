import { describe, expect, it } from 'vitest';
import { defaultEmailMode, NOTIFICATION_TYPES, resolveEmailPreferences } from './notification-types.js';

describe('e-mail preferences', () => {
  it('defaults mentions and invitations to instant and the rest to digest', () => {
    expect(defaultEmailMode('COMMENT_MENTION')).toBe('instant');
    expect(defaultEmailMode('WORKSPACE_INVITATION')).toBe('instant');
    expect(defaultEmailMode('DOCUMENT_UPDATED')).toBe('digest');
  });

  it('does not e-mail finished jobs unless asked', () => {
    expect(defaultEmailMode('JOB_FINISHED')).toBe('off');
    expect(resolveEmailPreferences({ JOB_FINISHED: 'instant' }).JOB_FINISHED).toBe('instant');
  });

  it('lays stored choices over the defaults and drops what it does not know', () => {
    const resolved = resolveEmailPreferences({ COMMENT_REPLY: 'off', NOT_A_TYPE: 'off', COMMENT_MENTION: 'loud' });
    expect(Object.keys(resolved)).toEqual([...NOTIFICATION_TYPES]);
    expect(resolved.COMMENT_REPLY).toBe('off');
    expect(resolved.COMMENT_MENTION).toBe('instant');
    expect(resolved).not.toHaveProperty('NOT_A_TYPE');
  });
});
