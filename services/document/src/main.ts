import { loadConfigOrExit } from '@wiki/config';
import { startService } from './service.js';

const config = loadConfigOrExit();
const { app, stop } = await startService(config);
await app.listen({ port: config.ports.document, host: process.env.HOST ?? '0.0.0.0' });

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    stop().then(
      () => process.exit(0),
      (error) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
