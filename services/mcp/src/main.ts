import { configOrExit, listenAddresses, loadConfigOrExit } from '@wiki/config';
import { serveUntilSignalled, stopWithLauncher } from '@wiki/http';
import { startService } from './service.js';
import { loadMcpSettings } from './settings.js';

stopWithLauncher();
const config = loadConfigOrExit();
configOrExit(() => loadMcpSettings(config.env));
const addresses = configOrExit(() => listenAddresses(config, config.ports.mcp));
await serveUntilSignalled(await startService(config), addresses);
