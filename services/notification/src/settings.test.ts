import { ConfigError } from '@wiki/config';
import { describe, expect, it } from 'vitest';
import { loadNotificationSettings } from './settings.js';

describe('notification settings', () => {
  it('default to a heartbeat every 25 s and 10 streams per user (ARCHITECTURE 5.14)', () => {
    expect(loadNotificationSettings({})).toEqual({ heartbeatMs: 25_000, streamsPerUser: 10 });
    expect(loadNotificationSettings({ NOTIFICATION_HEARTBEAT_MS: '50', NOTIFICATION_STREAMS_PER_USER: '3' })).toEqual({
      heartbeatMs: 50,
      streamsPerUser: 3,
    });
  });

  it.each([
    ['NOTIFICATION_HEARTBEAT_MS', '5'],
    ['NOTIFICATION_STREAMS_PER_USER', '0'],
    ['NOTIFICATION_STREAMS_PER_USER', 'many'],
  ])('names the variable of a bad value: %s=%s', (name, value) => {
    expect(() => loadNotificationSettings({ [name]: value })).toThrow(ConfigError);
    expect(() => loadNotificationSettings({ [name]: value })).toThrow(name);
  });
});
