import { loadConfigOrExit } from '@wiki/config';
import { serveUntilSignalled, stopWithLauncher } from '@wiki/http';
import { startService } from './service.js';

// Stops with the `npm start` that launched it, even when that one dies without a signal.
stopWithLauncher();
const config = loadConfigOrExit();
await serveUntilSignalled(await startService(config), config.gatewayPort);
