import { runMain } from '@wiki/http';
import { startService } from './service.js';
import { loadGatewaySettings } from './settings.js';

// The gateway faces the network: its /metrics stays on loopback unless METRICS_HOST says otherwise.
await runMain({
  start: startService,
  port: (config) => config.gatewayPort,
  facesNetwork: true,
  settings: (config) => loadGatewaySettings(config.env),
});
