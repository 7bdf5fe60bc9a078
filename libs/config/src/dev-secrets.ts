import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type EnvVar, envVar, refuse } from './env-vars.js';
import { weakSecretReason } from './production-secrets.js';

/**
 * Secrets that a local start needs but nobody configured: made once and kept in
 * `<dataDir>/dev-secrets.json`, so that separately started services agree on them.
 * Production must set them explicitly.
 */
function devSecret(dataDir: string, key: string): string {
  const file = join(dataDir, 'dev-secrets.json');
  let secrets: Record<string, string> = {};
  if (existsSync(file)) secrets = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  if (!secrets[key]) {
    secrets[key] = randomBytes(32).toString('base64url');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  return secrets[key];
}

/** The secrets a local start generated in `dataDir` (none when it never ran there). */
function generatedDevSecrets(dataDir: string): string[] {
  const file = join(dataDir, 'dev-secrets.json');
  if (!existsSync(file)) return [];
  try {
    return Object.values(JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>);
  } catch {
    return [];
  }
}

/**
 * A shared secret named `variable`: at least 16 characters; in production required and strong
 * (production-secrets.ts), elsewhere generated once into `dataDir` when unset.
 */
export function secret(
  variable: string,
  { production, dataDir }: { production: boolean; dataDir: string },
): EnvVar<string> {
  return envVar((raw) => {
    if (raw !== undefined) {
      if (raw.length < 16) refuse('must be at least 16 characters long');
      if (production) {
        // Messages name the variable, never the value (it would land in the logs).
        const reason = weakSecretReason(raw, generatedDevSecrets(dataDir));
        if (reason) refuse(reason);
      }
      return raw;
    }
    if (production) refuse('is required when NODE_ENV=production');
    return devSecret(dataDir, variable);
  });
}
