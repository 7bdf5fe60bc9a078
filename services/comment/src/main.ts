import { loadConfigOrExit } from '@wiki/config';
import { startService } from './service.js';

const config = loadConfigOrExit();
const service = await startService(config);
await service.app.listen({ port: config.ports.comment, host: process.env.HOST ?? '0.0.0.0' });

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  service.app.log.info({ signal }, 'shutting down');
  await service.stop();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
