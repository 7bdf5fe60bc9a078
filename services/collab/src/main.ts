import { configOrExit, listenAddresses, loadConfigOrExit } from '@wiki/config';
import { serveUntilSignalled, stopWithLauncher } from '@wiki/http';
import { startService } from './service.js';
import { loadCollabSettings } from './settings.js';

stopWithLauncher();
const config = loadConfigOrExit();
configOrExit(() => loadCollabSettings(config.env));
const addresses = configOrExit(() => listenAddresses(config, config.ports.collab));
await serveUntilSignalled(await startService(config), addresses);
