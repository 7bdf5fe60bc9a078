import { ConfigError } from '@wiki/config';
import { describe, expect, it } from 'vitest';
import {
  describeMailDestination,
  loadMailSettings,
  loadNotificationSettings,
  loadWebhookSettings,
} from './settings.js';

describe('notification settings', () => {
  it('default to a heartbeat every 25 s and 10 streams per user (ARCHITECTURE 5.14)', () => {
    expect(loadNotificationSettings({})).toMatchObject({ heartbeatMs: 25_000, streamsPerUser: 10 });
    expect(
      loadNotificationSettings({ NOTIFICATION_HEARTBEAT_MS: '50', NOTIFICATION_STREAMS_PER_USER: '3' }),
    ).toMatchObject({
      heartbeatMs: 50,
      streamsPerUser: 3,
    });
  });

  it('debounce watched documents by 600 s unless WATCH_DEBOUNCE_S says otherwise (ARCHITECTURE 5.18)', () => {
    expect(loadNotificationSettings({}).watchDebounceS).toBe(600);
    expect(loadNotificationSettings({ WATCH_DEBOUNCE_S: '0' }).watchDebounceS).toBe(0);
    expect(loadNotificationSettings({ WATCH_DEBOUNCE_S: '2' }).watchDebounceS).toBe(2);
  });

  it.each([
    ['WATCH_DEBOUNCE_S', '-1'],
    ['WATCH_DEBOUNCE_S', '1.5'],
    ['NOTIFICATION_HEARTBEAT_MS', '5'],
    ['NOTIFICATION_STREAMS_PER_USER', '0'],
    ['NOTIFICATION_STREAMS_PER_USER', 'many'],
  ])('names the variable of a bad value: %s=%s', (name, value) => {
    expect(() => loadNotificationSettings({ [name]: value })).toThrow(ConfigError);
    expect(() => loadNotificationSettings({ [name]: value })).toThrow(name);
  });
});

describe('mail settings', () => {
  const base = { dataDir: '/srv/wiki-data', gatewayPort: 8080, dbPrefix: 'wiki' };

  it('default to .eml files under DATA_DIR/mail, daily digests and links to the local gateway', () => {
    const s = loadMailSettings({ ...base, env: {} });
    expect(s).toMatchObject({
      smtpUrl: undefined,
      from: 'Wiki <wiki@localhost>',
      dir: '/srv/wiki-data/mail',
      publicUrl: 'http://localhost:8080',
      digestHours: 24,
      queuePrefix: 'wiki:bull',
    });
    expect(describeMailDestination(s)).toBe('written as .eml files to /srv/wiki-data/mail');
  });

  it('say where mail goes without the credentials of SMTP_URL', () => {
    const s = loadMailSettings({ ...base, env: { SMTP_URL: 'smtps://mailer:hunter22@mail.example.com:465' } });
    expect(s.smtpUrl).toBe('smtps://mailer:hunter22@mail.example.com:465');
    expect(describeMailDestination(s)).toBe('sent through smtps://mail.example.com:465');
  });

  it.each([
    ['SMTP_URL', 'http://mail.example.com'],
    ['DIGEST_HOURS', '0'],
    ['DIGEST_HOURS', '169'],
    ['INVITE_URL', 'ftp://wiki'],
    ['MAIL_ATTEMPTS', '0'],
  ])('names the variable of a bad value: %s=%s', (name, value) => {
    expect(() => loadMailSettings({ ...base, env: { [name]: value } })).toThrow(name);
  });

  it('never shows a rejected SMTP_URL’s password in the error', () => {
    expect(() => loadMailSettings({ ...base, env: { SMTP_URL: 'http://mailer:hunter22@mail.example.com' } })).toThrow(
      /^(?!.*hunter22)/s,
    );
  });
});

describe('webhook settings', () => {
  it('default to no allowed hosts, 10 s first retry, 24 h of retries and 3 days before disabling', () => {
    expect(loadWebhookSettings({})).toEqual({
      allowedHosts: [],
      retryBaseMs: 10_000,
      retryWindowMs: 86_400_000,
      disableAfterMs: 259_200_000,
    });
    expect(
      loadWebhookSettings({ WEBHOOK_ALLOWED_HOSTS: ' 127.0.0.1, Hooks.Internal ,[::1]', WEBHOOK_RETRY_BASE_MS: '50' }),
    ).toMatchObject({ allowedHosts: ['127.0.0.1', 'hooks.internal', '::1'], retryBaseMs: 50 });
  });

  it.each([
    ['WEBHOOK_RETRY_BASE_MS', '0'],
    ['WEBHOOK_RETRY_WINDOW_MS', 'a day'],
    ['WEBHOOK_DISABLE_AFTER_MS', '5'],
  ])('names the variable of a bad value: %s=%s', (name, value) => {
    expect(() => loadWebhookSettings({ [name]: value })).toThrow(name);
  });
});
