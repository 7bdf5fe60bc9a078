import { z } from 'zod';
import { ConfigError } from './config-error.js';
import type { EnvVar } from './env-vars.js';

export type Env = Record<string, string | undefined>;

/** A part's settings as a schema: each environment variable it reads, by name, with its reading. */
export type EnvSchema = Record<string, EnvVar<unknown>>;

export type SettingsOf<S extends EnvSchema> = { [K in keyof S]: z.output<S[K]> };

/**
 * Reads the variables `schema` names from `env`. The first one refused (in the schema's order)
 * stops the reading with a ConfigError naming it: `Invalid configuration: PORT must be ...`.
 */
export function readEnv<S extends EnvSchema>(env: Env, schema: S): SettingsOf<S> {
  const parsed = z.object(schema).safeParse(env);
  if (parsed.success) return parsed.data as SettingsOf<S>;
  const [issue] = parsed.error.issues;
  throw new ConfigError(String(issue.path[0]), issue.message);
}
