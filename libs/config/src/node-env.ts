import { text } from './env-vars.js';
import { type Env, readEnv } from './read-env.js';

/**
 * Whether NODE_ENV is `production` (default `development`): the one switch behind every check a
 * production start makes, in the shared configuration and in a part's own settings.
 */
export function isProduction(env: Env): boolean {
  return readEnv(env, { NODE_ENV: text('development') }).NODE_ENV === 'production';
}
