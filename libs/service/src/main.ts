import { type MainOptions, runMain } from '@wiki/http';
import type { AnyServiceDefinition } from './definition.js';
import { startService } from './runner.js';

/**
 * A service as a part of a process: how it starts from its configuration, its port and its own
 * settings. Run alone by its `main.ts`, or beside the others in npm start's one process.
 */
export function servicePart(definition: AnyServiceDefinition): MainOptions {
  return {
    start: (config) => startService(definition, config),
    port: (config) => config.ports[definition.name],
    settings: definition.settings,
  };
}

/**
 * The whole of a service's `main.ts`: configuration, start, listen on its port (and `/metrics` on
 * its own), stop on a signal or when the `npm start` that launched it is gone.
 */
export function runServiceMain(definition: AnyServiceDefinition): Promise<void> {
  return runMain(servicePart(definition));
}
