import { ConfigError } from './config-error.js';
import type { Env } from './read-env.js';
import { type Config, loadConfig } from './shared-config.js';

/**
 * Loads the configuration or stops the process with a message naming the bad variable.
 * For `main.ts` files; tests call `loadConfig` and see the thrown `ConfigError`.
 */
export function loadConfigOrExit(env: Env = process.env): Config {
  return configOrExit(() => loadConfig(env));
}

/**
 * Runs a reading of the configuration (loadConfig, listenAddresses, a service's own settings) or
 * stops as loadConfigOrExit does.
 */
export function configOrExit<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}
