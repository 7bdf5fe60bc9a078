import { configOrExit, listenAddresses, loadConfigOrExit } from '@wiki/config';
import { serveUntilSignalled, stopWithLauncher } from '@wiki/http';
import type { ServiceDefinition } from './definition.js';
import { startService } from './runner.js';

/**
 * The whole of a service's `main.ts`: configuration, start, listen on its port (and `/metrics` on
 * its own), stop on a signal or when the `npm start` that launched it is gone.
 */
export async function runServiceMain(definition: ServiceDefinition): Promise<void> {
  stopWithLauncher();
  const config = loadConfigOrExit();
  configOrExit(() => definition.settings?.(config));
  const addresses = configOrExit(() => listenAddresses(config, config.ports[definition.name]));
  await serveUntilSignalled(await startService(definition, config), addresses);
}
