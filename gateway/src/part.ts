import type { MainOptions } from '@wiki/http';
import { startService } from './service.js';
import { loadGatewaySettings } from './settings.js';

/**
 * The gateway as a part of a process: run alone by main.ts, or in npm start's one process. It faces
 * the network: its /metrics stays on loopback unless METRICS_HOST says otherwise.
 */
export const part: MainOptions = {
  start: startService,
  port: (config) => config.gatewayPort,
  facesNetwork: true,
  settings: (config) => loadGatewaySettings(config.env),
};
