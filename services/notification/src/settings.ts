import { type Env, readEnv, wholeNumber } from '@wiki/config';

/** What the notification service reads besides the shared configuration (libs/config). */
export interface NotificationSettings {
  /**
   * How often the stream sends a heartbeat comment (NOTIFICATION_HEARTBEAT_MS, default 25 s):
   * under the idle timeouts of common proxies; tests shorten it.
   */
  heartbeatMs: number;
  /**
   * Open streams per user across every replica (NOTIFICATION_STREAMS_PER_USER, default 10;
   * ARCHITECTURE 5.14): a new one closes the oldest.
   */
  streamsPerUser: number;
}

export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = { heartbeatMs: 25_000, streamsPerUser: 10 };

/** Read by buildApp; a bad value names its variable (ConfigError). */
export function loadNotificationSettings(env: Env): NotificationSettings {
  const d = DEFAULT_NOTIFICATION_SETTINGS;
  const read = readEnv(env, {
    NOTIFICATION_HEARTBEAT_MS: wholeNumber(d.heartbeatMs, { min: 10, max: 3_600_000 }),
    NOTIFICATION_STREAMS_PER_USER: wholeNumber(d.streamsPerUser, { min: 1, max: 10_000 }),
  });
  return { heartbeatMs: read.NOTIFICATION_HEARTBEAT_MS, streamsPerUser: read.NOTIFICATION_STREAMS_PER_USER };
}
