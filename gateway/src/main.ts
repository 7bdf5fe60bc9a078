import { loadConfigOrExit } from '@wiki/config';
import { serveUntilSignalled } from '@wiki/http';
import { startService } from './service.js';

const config = loadConfigOrExit();
await serveUntilSignalled(await startService(config), config.gatewayPort);
