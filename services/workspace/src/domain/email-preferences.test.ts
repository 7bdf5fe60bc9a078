import { NOTIFICATION_TYPES } from '@wiki/events';
import {
  describeUnsubscribe,
  isUnsubscribeTarget,
  notifiedPreferences,
  notifiedPreferencesDiffer,
  unsubscribePatch,
} from './email-preferences.js';

describe('email preferences', () => {
  it('knows what an unsubscribe link may name', () => {
    expect(isUnsubscribeTarget('COMMENT_REPLY')).toBe(true);
    expect(isUnsubscribeTarget('*')).toBe(true);
    expect(isUnsubscribeTarget('NOT_A_TYPE')).toBe(false);
    expect(isUnsubscribeTarget('comment_reply')).toBe(false);
  });

  it('turns off one type, or every type', () => {
    expect(unsubscribePatch('COMMENT_REPLY')).toEqual({ COMMENT_REPLY: 'off' });
    const all = unsubscribePatch('*');
    expect(Object.keys(all).sort()).toEqual([...NOTIFICATION_TYPES].sort());
    expect(new Set(Object.values(all))).toEqual(new Set(['off']));
    expect(describeUnsubscribe('COMMENT_MENTION')).toBe('e-mails about mentions of you');
    expect(describeUnsubscribe('*')).toBe('all e-mails from the wiki');
  });

  it('compares what other services act on, in effect', () => {
    const stored = { notificationsEnabled: true, locale: 'en', emailNotifications: {} };
    const before = notifiedPreferences(stored);
    // Choosing a type's default changes nothing anyone acts on.
    expect(
      notifiedPreferencesDiffer(
        before,
        notifiedPreferences({ ...stored, emailNotifications: { COMMENT_MENTION: 'instant' } }),
      ),
    ).toBe(false);
    expect(
      notifiedPreferencesDiffer(
        before,
        notifiedPreferences({ ...stored, emailNotifications: { COMMENT_MENTION: 'off' } }),
      ),
    ).toBe(true);
    expect(notifiedPreferencesDiffer(before, notifiedPreferences({ ...stored, locale: 'de' }))).toBe(true);
    expect(notifiedPreferencesDiffer(before, notifiedPreferences({ ...stored, notificationsEnabled: false }))).toBe(
      true,
    );
  });
});
