import { join, resolve } from 'node:path';
import { type Config, type Env, envVar, listItems, matching, readEnv, text, url, wholeNumber } from '@wiki/config';

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
  /**
   * A watcher gets at most one DOCUMENT_UPDATED per document in this many seconds
   * (WATCH_DEBOUNCE_S, default 600; ARCHITECTURE 5.18): later edits inside it add none.
   */
  watchDebounceS: number;
}

export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = {
  heartbeatMs: 25_000,
  streamsPerUser: 10,
  watchDebounceS: 600,
};

/** Read by buildApp; a bad value names its variable (ConfigError). */
export function loadNotificationSettings(env: Env): NotificationSettings {
  const d = DEFAULT_NOTIFICATION_SETTINGS;
  const read = readEnv(env, {
    NOTIFICATION_HEARTBEAT_MS: wholeNumber(d.heartbeatMs, { min: 10, max: 3_600_000 }),
    NOTIFICATION_STREAMS_PER_USER: wholeNumber(d.streamsPerUser, { min: 1, max: 10_000 }),
    WATCH_DEBOUNCE_S: wholeNumber(d.watchDebounceS, { min: 0, max: 7 * 86_400 }),
  });
  return {
    heartbeatMs: read.NOTIFICATION_HEARTBEAT_MS,
    streamsPerUser: read.NOTIFICATION_STREAMS_PER_USER,
    watchDebounceS: read.WATCH_DEBOUNCE_S,
  };
}

/** How e-mail goes out (ARCHITECTURE 5.18; README "E-mail"). */
export interface MailSettings {
  /** SMTP_URL (smtp:// or smtps://, credentials inside): unset, each message is written to `dir` instead. Never logged. */
  smtpUrl?: string;
  /** MAIL_FROM: the sender of every message. */
  from: string;
  /** MAIL_DIR (default `<DATA_DIR>/mail`): where messages land as .eml files without SMTP_URL. */
  dir: string;
  /** Where links in messages point: the web app's public address (INVITE_URL, shared with the workspace service). */
  publicUrl: string;
  /** DIGEST_HOURS (1..168, default 24): each person gets at most one digest per window of this length. */
  digestHours: number;
  /** Tries per message, the first included (MAIL_ATTEMPTS), with exponential back-off from MAIL_BACKOFF_MS. */
  attempts: number;
  backoffMs: number;
  /** BullMQ's key prefix (MAIL_QUEUE_PREFIX, default `<DB_PREFIX>:bull`): each test run has its own queue. */
  queuePrefix: string;
}

/** Read at start (the definition's settings); a bad value names its variable (ConfigError). */
export function loadMailSettings(config: Pick<Config, 'env' | 'dataDir' | 'gatewayPort' | 'dbPrefix'>): MailSettings {
  const read = readEnv(config.env, {
    SMTP_URL: url(['smtp:', 'smtps:']),
    MAIL_FROM: text('Wiki <wiki@localhost>'),
    MAIL_DIR: text(join(config.dataDir, 'mail')),
    INVITE_URL: url(['http:', 'https:'], `http://localhost:${config.gatewayPort}`),
    DIGEST_HOURS: wholeNumber(24, { min: 1, max: 168 }),
    MAIL_ATTEMPTS: wholeNumber(8, { min: 1, max: 50 }),
    MAIL_BACKOFF_MS: wholeNumber(5_000, { min: 10, max: 3_600_000 }),
    MAIL_QUEUE_PREFIX: matching(/^[A-Za-z0-9:_-]{1,64}$/, '1-64 letters, digits, ":", "_" or "-"'),
  });
  return {
    smtpUrl: read.SMTP_URL,
    from: read.MAIL_FROM,
    dir: resolve(read.MAIL_DIR),
    publicUrl: read.INVITE_URL,
    digestHours: read.DIGEST_HOURS,
    attempts: read.MAIL_ATTEMPTS,
    backoffMs: read.MAIL_BACKOFF_MS,
    queuePrefix: read.MAIL_QUEUE_PREFIX ?? `${config.dbPrefix}:bull`,
  };
}

/** Where mail goes, for `npm start`'s banner and the log: the server without its credentials, or the folder. */
export function describeMailDestination(settings: Pick<MailSettings, 'smtpUrl' | 'dir'>): string {
  if (!settings.smtpUrl) return `written as .eml files to ${settings.dir}`;
  const server = new URL(settings.smtpUrl);
  return `sent through ${server.protocol}//${server.host}`;
}
/** The webhooks' settings (ARCHITECTURE 5.18), read apart from the rest so each part stays small. */
export interface WebhookSettings {
  /**
   * Hosts a webhook may target although they resolve to a private, loopback or link-local address
   * (WEBHOOK_ALLOWED_HOSTS, comma-separated host names or addresses, default none).
   */
  allowedHosts: string[];
  /** The first retry's delay (WEBHOOK_RETRY_BASE_MS, default 10 s); each next one doubles, up to an hour. */
  retryBaseMs: number;
  /** How long a delivery is retried before it is failed (WEBHOOK_RETRY_WINDOW_MS, default 24 h). */
  retryWindowMs: number;
  /** How long a webhook may fail without one success before it is disabled (WEBHOOK_DISABLE_AFTER_MS, 3 days). */
  disableAfterMs: number;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  allowedHosts: [],
  retryBaseMs: 10_000,
  retryWindowMs: 24 * 3_600_000,
  disableAfterMs: 3 * 24 * 3_600_000,
};

/** A host name or address as the URL parser writes it: lower case, IPv6 without brackets. */
export const normalHost = (host: string) =>
  host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');

export function loadWebhookSettings(env: Env): WebhookSettings {
  const d = DEFAULT_WEBHOOK_SETTINGS;
  const read = readEnv(env, {
    WEBHOOK_ALLOWED_HOSTS: envVar((raw) => (raw ? listItems(raw).map(normalHost) : d.allowedHosts)),
    WEBHOOK_RETRY_BASE_MS: wholeNumber(d.retryBaseMs, { min: 1, max: 3_600_000 }),
    WEBHOOK_RETRY_WINDOW_MS: wholeNumber(d.retryWindowMs, { min: 100, max: 7 * 24 * 3_600_000 }),
    WEBHOOK_DISABLE_AFTER_MS: wholeNumber(d.disableAfterMs, { min: 100, max: 90 * 24 * 3_600_000 }),
  });
  return {
    allowedHosts: read.WEBHOOK_ALLOWED_HOSTS,
    retryBaseMs: read.WEBHOOK_RETRY_BASE_MS,
    retryWindowMs: read.WEBHOOK_RETRY_WINDOW_MS,
    disableAfterMs: read.WEBHOOK_DISABLE_AFTER_MS,
  };
}
