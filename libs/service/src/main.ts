import { loadConfigOrExit } from '@wiki/config';
import { serveUntilSignalled, stopWithLauncher } from '@wiki/http';
import type { ServiceDefinition } from './definition.js';
import { startService } from './runner.js';

/**
 * The whole of a service's `main.ts`: configuration, start, listen on its port, stop on a signal
 * or when the `npm start` that launched it is gone.
 */
export async function runServiceMain(definition: ServiceDefinition): Promise<void> {
  stopWithLauncher();
  const config = loadConfigOrExit();
  await serveUntilSignalled(await startService(definition, config), config.ports[definition.name]);
}
