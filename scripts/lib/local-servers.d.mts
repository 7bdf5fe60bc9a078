export interface StartedServer {
  name: 'PostgreSQL' | 'NATS' | 'Redis';
  variable: 'PG_URL' | 'NATS_URL' | 'REDIS_URL';
  url: string;
  dir: string;
  logFile: string;
  pidFile?: string;
  stopCommand: string;
}
export interface LocalServersOptions {
  env?: Record<string, string | undefined>;
  defaults?: Record<'PG_URL' | 'NATS_URL' | 'REDIS_URL', string>;
  dataDir?: string;
  install?: boolean;
  log?: (line: string) => void;
}
export declare const DEFAULT_URLS: Record<'PG_URL' | 'NATS_URL' | 'REDIS_URL', string>;
export declare const DEFAULT_DATA_DIR: string;
export declare function ensureLocalServers(
  options?: LocalServersOptions,
): Promise<{ started: StartedServer[]; down: string[] }>;
export declare function describeStarted(started: StartedServer[]): string[];
export declare function stopLocalServers(options?: { dataDir?: string }): Promise<string[]>;
