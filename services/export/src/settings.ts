import { type Env, type EnvVar, envVar, flag, matching, oneOf, readEnv, refuse, text, wholeNumber } from '@wiki/config';
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
   * How long a finished tree export (a job's zip) can be downloaded (EXPORT_DOWNLOAD_TTL_MS,
   * default 24 h); then the sweep removes it and its download answers 410.
   */
  downloadTtlMs: number;
  /**
   * Chromium's own sandbox (EXPORT_CHROMIUM_SANDBOX, default true). Run as root, the browser is
   * started as EXPORT_CHROMIUM_USER (`uid:gid`, default nobody's 65534:65534), since Chromium
   * refuses its sandbox to root. `false` runs it with --no-sandbox, for containers whose seccomp
   * profile forbids the user namespaces the sandbox needs (docs/DECISIONS.md).
   */
  chromiumSandbox: boolean;
  chromiumUser: { uid: number; gid: number };
  /** The browser PDFs are printed with (CHROMIUM_PATH, default Debian's /usr/bin/chromium). */
  chromiumPath: string;
  /** The largest import upload (IMPORT_MAX_BYTES, default 256 MiB): 413 past it. */
  importMaxBytes: number;
  /** Documents per creating call of an import: the document service's 1,000 unless given (tests, to see several calls). */
  importBatchDocuments?: number;
  /** Called before each creating call of an import, from 0 (tests: something happens between two calls). */
  beforeImportBatch?: (batch: number, importId: string) => Promise<void>;
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
  downloadTtlMs: 24 * 3_600_000,
  chromiumSandbox: true,
  chromiumUser: { uid: 65534, gid: 65534 },
  chromiumPath: '/usr/bin/chromium',
  importMaxBytes: 256 * 1024 * 1024,
};

/** `uid:gid` of a user other than root. */
function otherUser(fallback: { uid: number; gid: number }): EnvVar<{ uid: number; gid: number }> {
  return envVar((raw) => {
    if (raw === undefined) return fallback;
    const match = /^(\d{1,10}):(\d{1,10})$/.exec(raw);
    const [uid, gid] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
    // Never root: the point of the setting is to leave it.
    if (!match || uid === 0 || gid === 0 || uid > 4_294_967_294 || gid > 4_294_967_294) {
      refuse('must be "uid:gid" of a user other than root, e.g. 65534:65534');
    }
    return { uid, gid };
  });
}

/** Read once at start (main.ts, or startService from the configuration's env); a bad value names its variable. */
export function loadExportSettings(env: Env): ExportSettings {
  const d = DEFAULT_EXPORT_SETTINGS;
  const read = readEnv(env, {
    EXPORT_ROLE: oneOf(EXPORT_ROLES, d.role),
    EXPORT_TIMEOUT_MS: wholeNumber(d.timeoutMs, { min: 100, max: 600_000 }),
    EXPORT_CONCURRENCY: wholeNumber(d.concurrency, { min: 1, max: 32 }),
    EXPORT_ATTEMPTS: wholeNumber(d.attempts, { min: 1, max: 10 }),
    EXPORT_BACKOFF_MS: wholeNumber(d.backoffMs, { min: 0, max: 60_000 }),
    EXPORT_LOCK_MS: wholeNumber(d.lockMs, { min: 1_000, max: 600_000 }),
    EXPORT_STALLED_INTERVAL_MS: wholeNumber(d.stalledIntervalMs, { min: 500, max: 600_000 }),
    EXPORT_RENDER_TIMEOUT_MS: wholeNumber(d.renderTimeoutMs, { min: 100, max: 600_000 }),
    EXPORT_IMAGE_MAX_BYTES: wholeNumber(d.imageMaxBytes, { min: 1024, max: 40 * 1024 * 1024 }),
    EXPORT_QUEUE_PREFIX: matching(/^[A-Za-z0-9:_-]{1,64}$/, '1-64 letters, digits, ":", "_" or "-"'),
    EXPORT_CONCURRENT_PER_USER: wholeNumber(d.concurrentPerUser, { min: 1, max: 1000 }),
    EXPORT_FILE_TTL_MS: wholeNumber(d.fileTtlMs, { min: 1_000, max: 7 * 24 * 3_600_000 }),
    EXPORT_SWEEP_INTERVAL_MS: wholeNumber(d.sweepIntervalMs, { min: 1_000, max: 24 * 3_600_000 }),
    EXPORT_DOWNLOAD_TTL_MS: wholeNumber(d.downloadTtlMs, { min: 1_000, max: 30 * 24 * 3_600_000 }),
    EXPORT_CHROMIUM_SANDBOX: flag(d.chromiumSandbox),
    EXPORT_CHROMIUM_USER: otherUser(d.chromiumUser),
    CHROMIUM_PATH: text(d.chromiumPath),
    // The worker holds the whole upload in memory while it plans it: 2 GiB is the ceiling.
    IMPORT_MAX_BYTES: wholeNumber(d.importMaxBytes, { min: 1024, max: 2 * 1024 * 1024 * 1024 }),
  });
  return {
    role: read.EXPORT_ROLE,
    timeoutMs: read.EXPORT_TIMEOUT_MS,
    concurrency: read.EXPORT_CONCURRENCY,
    attempts: read.EXPORT_ATTEMPTS,
    backoffMs: read.EXPORT_BACKOFF_MS,
    lockMs: read.EXPORT_LOCK_MS,
    stalledIntervalMs: read.EXPORT_STALLED_INTERVAL_MS,
    renderTimeoutMs: read.EXPORT_RENDER_TIMEOUT_MS,
    imageMaxBytes: read.EXPORT_IMAGE_MAX_BYTES,
    queuePrefix: read.EXPORT_QUEUE_PREFIX,
    concurrentPerUser: read.EXPORT_CONCURRENT_PER_USER,
    fileTtlMs: read.EXPORT_FILE_TTL_MS,
    sweepIntervalMs: read.EXPORT_SWEEP_INTERVAL_MS,
    downloadTtlMs: read.EXPORT_DOWNLOAD_TTL_MS,
    chromiumSandbox: read.EXPORT_CHROMIUM_SANDBOX,
    chromiumUser: read.EXPORT_CHROMIUM_USER,
    chromiumPath: read.CHROMIUM_PATH,
    importMaxBytes: read.IMPORT_MAX_BYTES,
  };
}

export const hasApi = (role: ExportRole) => role !== 'worker';
export const hasWorker = (role: ExportRole) => role !== 'api';
