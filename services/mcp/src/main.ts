import { loadConfigOrExit } from '@wiki/config';
import { serveUntilSignalled, stopWithLauncher } from '@wiki/http';
import { startService } from './service.js';

stopWithLauncher();
const config = loadConfigOrExit();
await serveUntilSignalled(await startService(config), config.ports.mcp);
