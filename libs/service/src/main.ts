import { runMain } from '@wiki/http';
import type { AnyServiceDefinition } from './definition.js';
import { startService } from './runner.js';

/**
 * The whole of a service's `main.ts`: configuration, start, listen on its port (and `/metrics` on
 * its own), stop on a signal or when the `npm start` that launched it is gone.
 */
export function runServiceMain(definition: AnyServiceDefinition): Promise<void> {
  return runMain({
    start: (config) => startService(definition, config),
    port: (config) => config.ports[definition.name],
    settings: definition.settings,
  });
}
