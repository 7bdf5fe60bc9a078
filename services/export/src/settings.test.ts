import { ConfigError } from '@wiki/config';
import { describe, expect, it } from 'vitest';
import { DEFAULT_EXPORT_SETTINGS, hasApi, hasWorker, loadExportSettings } from './settings.js';

describe('loadExportSettings', () => {
  it('defaults to both roles, a 60 s timeout, three attempts, three exports a user, the sandbox on', () => {
    expect(loadExportSettings({})).toEqual({ ...DEFAULT_EXPORT_SETTINGS, queuePrefix: undefined });
    expect(DEFAULT_EXPORT_SETTINGS).toMatchObject({
      role: 'both',
      timeoutMs: 60_000,
      attempts: 3,
      concurrentPerUser: 3,
      chromiumSandbox: true,
      chromiumUser: { uid: 65534, gid: 65534 },
      chromiumPath: '/usr/bin/chromium',
    });
  });

  it('reads every variable', () => {
    expect(
      loadExportSettings({
        EXPORT_ROLE: 'worker',
        EXPORT_TIMEOUT_MS: '5000',
        EXPORT_CONCURRENCY: '4',
        EXPORT_ATTEMPTS: '5',
        EXPORT_BACKOFF_MS: '0',
        EXPORT_LOCK_MS: '2000',
        EXPORT_STALLED_INTERVAL_MS: '1000',
        EXPORT_RENDER_TIMEOUT_MS: '3000',
        EXPORT_QUEUE_PREFIX: 'site-a:bull',
        EXPORT_IMAGE_MAX_BYTES: '2048',
        EXPORT_CONCURRENT_PER_USER: '5',
        EXPORT_FILE_TTL_MS: '60000',
        EXPORT_SWEEP_INTERVAL_MS: '10000',
        EXPORT_DOWNLOAD_TTL_MS: '3600000',
        EXPORT_CHROMIUM_SANDBOX: 'false',
        EXPORT_CHROMIUM_USER: '1001:1002',
        CHROMIUM_PATH: '/opt/chromium/chrome',
        IMPORT_MAX_BYTES: '1048576',
      }),
    ).toEqual({
      role: 'worker',
      timeoutMs: 5000,
      concurrency: 4,
      attempts: 5,
      backoffMs: 0,
      lockMs: 2000,
      stalledIntervalMs: 1000,
      renderTimeoutMs: 3000,
      queuePrefix: 'site-a:bull',
      imageMaxBytes: 2048,
      concurrentPerUser: 5,
      fileTtlMs: 60_000,
      sweepIntervalMs: 10_000,
      downloadTtlMs: 3_600_000,
      chromiumSandbox: false,
      chromiumUser: { uid: 1001, gid: 1002 },
      chromiumPath: '/opt/chromium/chrome',
      importMaxBytes: 1_048_576,
    });
  });

  it('stops on a bad value, naming the variable', () => {
    for (const [name, value] of [
      ['EXPORT_ROLE', 'render'],
      ['EXPORT_TIMEOUT_MS', 'soon'],
      ['EXPORT_CONCURRENCY', '0'],
      ['EXPORT_ATTEMPTS', '1.5'],
      ['EXPORT_QUEUE_PREFIX', 'has space'],
      ['EXPORT_IMAGE_MAX_BYTES', '100'],
      ['EXPORT_CONCURRENT_PER_USER', '0'],
      ['EXPORT_DOWNLOAD_TTL_MS', '10'],
      ['EXPORT_CHROMIUM_SANDBOX', 'maybe'],
      ['EXPORT_CHROMIUM_USER', '0:0'],
      ['EXPORT_CHROMIUM_USER', 'nobody'],
      ['IMPORT_MAX_BYTES', '10'],
    ] as const) {
      expect(() => loadExportSettings({ [name]: value })).toThrow(ConfigError);
      expect(() => loadExportSettings({ [name]: value })).toThrow(name);
    }
  });

  it('splits the roles', () => {
    expect([hasApi('api'), hasWorker('api')]).toEqual([true, false]);
    expect([hasApi('worker'), hasWorker('worker')]).toEqual([false, true]);
    expect([hasApi('both'), hasWorker('both')]).toEqual([true, true]);
  });
});
