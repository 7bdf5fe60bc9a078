import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What a bench run's platform needs of its own: a data directory, database prefix, event stream and
 * secrets that no other run shares, dev sign-in and no rate limits (the load would trip them).
 * `name` (e.g. bench_1a2b3c4d) makes the prefixes.
 */
export function benchRunEnvironment(name: string, logLevel: string): Record<string, string> {
  return {
    NODE_ENV: 'development',
    LOG_LEVEL: logLevel,
    DATA_DIR: mkdtempSync(join(tmpdir(), `${name}-`)),
    DB_PREFIX: name,
    EVENTS_STREAM: name.toUpperCase(),
    EVENTS_PREFIX: name.replace(/_/g, '-'),
    AUTH_PROVIDER: 'dev',
    RATE_LIMIT_ENABLED: 'false',
    INTERNAL_API_KEY: randomBytes(24).toString('base64url'),
    INTERNAL_TOKEN_SECRET: randomBytes(32).toString('base64url'),
  };
}
