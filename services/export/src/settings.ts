import { ConfigError } from '@wiki/config';
import { IMAGE_MAX_BYTES, type ImageSource } from './render/images.js';

export type ExportRole = 'api' | 'worker' | 'both';
export const EXPORT_ROLES: readonly ExportRole[] = ['api', 'worker', 'both'];

/** What the export service reads besides the shared configuration (libs/config). */
export interface ExportSettings {
  /** Which half runs in this process (EXPORT_ROLE): `npm start` runs both, deployments scale them apart. */
  role: ExportRole;
  /** How long a request waits for its file before a 503 (EXPORT_TIMEOUT_MS, default 60 s). */
  timeoutMs: number;
  /** Jobs one worker renders at once, which is also the number of Chromium pages it keeps (EXPORT_CONCURRENCY). */
  concurrency: number;
  /** Tries per job, the first included (EXPORT_ATTEMPTS), with exponential back-off from EXPORT_BACKOFF_MS. */
  attempts: number;
  backoffMs: number;
  /**
   * A job's lock (EXPORT_LOCK_MS): renewed at half its length while a worker renders, so a worker
   * killed mid-job lets go of it this long after its death; another worker's stalled-job check
   * (every EXPORT_STALLED_INTERVAL_MS) then puts the job back in the queue.
   */
  lockMs: number;
  stalledIntervalMs: number;
  /** How long one PDF render may take before its page is thrown away (EXPORT_RENDER_TIMEOUT_MS). */
  renderTimeoutMs: number;
  /** BullMQ's key prefix (EXPORT_QUEUE_PREFIX, default `<DB_PREFIX>:bull`): each test run has its own queue. */
  queuePrefix?: string;
  /** The largest image embedded (EXPORT_IMAGE_MAX_BYTES); a larger one stays a link, unread. */
  imageMaxBytes: number;
  /** Where embedded images come from: the attachment service unless given (tests give their own). */
  images?: ImageSource;
  /**
   * Exports one user may have running at once, across every API replica (EXPORT_CONCURRENT_PER_USER,
   * default 3): one more is 429 with Retry-After.
   */
  concurrentPerUser: number;
  /**
   * How long a finished file may stay in storage (EXPORT_FILE_TTL_MS, default 15 min): it is
   * deleted once sent; one whose request went away is removed by the sweep (every
   * EXPORT_SWEEP_INTERVAL_MS) once older than this.
   */
  fileTtlMs: number;
  sweepIntervalMs: number;
  /**
   * Chromium's own sandbox (EXPORT_CHROMIUM_SANDBOX, default true). Run as root, the browser is
   * started as EXPORT_CHROMIUM_USER (`uid:gid`, default nobody's 65534:65534), since Chromium
   * refuses its sandbox to root. `false` runs it with --no-sandbox, for containers whose seccomp
   * profile forbids the user namespaces the sandbox needs (docs/DECISIONS.md).
   */
  chromiumSandbox: boolean;
  chromiumUser: { uid: number; gid: number };
}

export const DEFAULT_EXPORT_SETTINGS: ExportSettings = {
  role: 'both',
  timeoutMs: 60_000,
  concurrency: 2,
  attempts: 3,
  backoffMs: 500,
  lockMs: 15_000,
  stalledIntervalMs: 5_000,
  renderTimeoutMs: 20_000,
  imageMaxBytes: IMAGE_MAX_BYTES,
  concurrentPerUser: 3,
  fileTtlMs: 15 * 60_000,
  sweepIntervalMs: 5 * 60_000,
  chromiumSandbox: true,
  chromiumUser: { uid: 65534, gid: 65534 },
};

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max}`);
  }
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, 'must be true or false');
}

function user(env: Env, name: string, fallback: { uid: number; gid: number }): { uid: number; gid: number } {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const match = /^(\d{1,10}):(\d{1,10})$/.exec(raw);
  const [uid, gid] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
  // Never root: the point of the setting is to leave it.
  if (!match || uid === 0 || gid === 0 || uid > 4_294_967_294 || gid > 4_294_967_294) {
    throw new ConfigError(name, 'must be "uid:gid" of a user other than root, e.g. 65534:65534');
  }
  return { uid, gid };
}

/** Read once by main.ts; a bad value stops the process naming the variable (ConfigError). */
export function loadExportSettings(env: Env = process.env): ExportSettings {
  const role = env.EXPORT_ROLE || DEFAULT_EXPORT_SETTINGS.role;
  if (!(EXPORT_ROLES as readonly string[]).includes(role)) {
    throw new ConfigError('EXPORT_ROLE', `must be one of ${EXPORT_ROLES.join(', ')}`);
  }
  const prefix = env.EXPORT_QUEUE_PREFIX;
  if (prefix !== undefined && prefix !== '' && !/^[A-Za-z0-9:_-]{1,64}$/.test(prefix)) {
    throw new ConfigError('EXPORT_QUEUE_PREFIX', 'must be 1-64 letters, digits, ":", "_" or "-"');
  }
  const d = DEFAULT_EXPORT_SETTINGS;
  return {
    role: role as ExportRole,
    timeoutMs: int(env, 'EXPORT_TIMEOUT_MS', d.timeoutMs, 100, 600_000),
    concurrency: int(env, 'EXPORT_CONCURRENCY', d.concurrency, 1, 32),
    attempts: int(env, 'EXPORT_ATTEMPTS', d.attempts, 1, 10),
    backoffMs: int(env, 'EXPORT_BACKOFF_MS', d.backoffMs, 0, 60_000),
    lockMs: int(env, 'EXPORT_LOCK_MS', d.lockMs, 1_000, 600_000),
    stalledIntervalMs: int(env, 'EXPORT_STALLED_INTERVAL_MS', d.stalledIntervalMs, 500, 600_000),
    renderTimeoutMs: int(env, 'EXPORT_RENDER_TIMEOUT_MS', d.renderTimeoutMs, 100, 600_000),
    imageMaxBytes: int(env, 'EXPORT_IMAGE_MAX_BYTES', d.imageMaxBytes, 1024, 40 * 1024 * 1024),
    queuePrefix: prefix || undefined,
    concurrentPerUser: int(env, 'EXPORT_CONCURRENT_PER_USER', d.concurrentPerUser, 1, 1000),
    fileTtlMs: int(env, 'EXPORT_FILE_TTL_MS', d.fileTtlMs, 1_000, 7 * 24 * 3_600_000),
    sweepIntervalMs: int(env, 'EXPORT_SWEEP_INTERVAL_MS', d.sweepIntervalMs, 1_000, 24 * 3_600_000),
    chromiumSandbox: bool(env, 'EXPORT_CHROMIUM_SANDBOX', d.chromiumSandbox),
    chromiumUser: user(env, 'EXPORT_CHROMIUM_USER', d.chromiumUser),
  };
}

export const hasApi = (role: ExportRole) => role !== 'worker';
export const hasWorker = (role: ExportRole) => role !== 'api';
