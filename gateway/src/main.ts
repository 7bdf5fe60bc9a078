import { configOrExit, listenAddresses, loadConfigOrExit } from '@wiki/config';
import { serveUntilSignalled, stopWithLauncher } from '@wiki/http';
import { startService } from './service.js';
import { loadGatewaySettings } from './settings.js';

// Stops with the `npm start` that launched it, even when that one dies without a signal.
stopWithLauncher();
const config = loadConfigOrExit();
configOrExit(() => loadGatewaySettings(config.env));
// The gateway faces the network: its /metrics stays on loopback unless METRICS_HOST says otherwise.
const addresses = configOrExit(() => listenAddresses(config, config.gatewayPort, { facesNetwork: true }));
await serveUntilSignalled(await startService(config), addresses);
