import type { Logger } from '@wiki/events';

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  obj: object;
  msg?: string;
}

export type RecordingLogger = Logger & { entries: LogEntry[] };

/** A logger that keeps what it was told (so tests can assert on error logs) and prints nothing. */
export function recordingLogger(): RecordingLogger {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry['level']) => (obj: object, msg?: string) => {
    entries.push({ level, obj, msg });
  };
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
