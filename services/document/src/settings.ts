import { type Env, oneOf, readEnv, wholeNumber } from '@wiki/config';

/** What the document service reads besides the shared configuration (libs/config). */
export interface DocumentSettings {
  revisions: {
    /**
     * REVISION_INTERVAL_S (default 300): changes by the same people within this many seconds of a
     * revision's first change fold into it; 0 makes every change a revision of its own.
     */
    intervalS: number;
    /** REVISION_KEEP_DAYS (default 30): every revision is kept this long, then the last of each day for a year. */
    keepDays: number;
    /** REVISION_HISTORY (on | off, default on): off keeps counting revisions but writes no history. */
    history: boolean;
  };
}

/** A bad value names its variable (ConfigError). */
export function loadDocumentSettings(env: Env): DocumentSettings {
  const read = readEnv(env, {
    REVISION_INTERVAL_S: wholeNumber(300, { min: 0, max: 31 * 24 * 3600 }),
    REVISION_KEEP_DAYS: wholeNumber(30, { min: 1, max: 100 * 365 }),
    REVISION_HISTORY: oneOf(['on', 'off'] as const, 'on'),
  });
  return {
    revisions: {
      intervalS: read.REVISION_INTERVAL_S,
      keepDays: read.REVISION_KEEP_DAYS,
      history: read.REVISION_HISTORY === 'on',
    },
  };
}
