import { configOrExit, listenAddresses, loadConfigOrExit } from '@wiki/config';
import { serveUntilSignalled, stopWithLauncher } from '@wiki/http';
import { startService } from './service.js';

stopWithLauncher();
const config = loadConfigOrExit();
const addresses = configOrExit(() => listenAddresses(config, config.ports.mcp));
await serveUntilSignalled(await startService(config), addresses);
