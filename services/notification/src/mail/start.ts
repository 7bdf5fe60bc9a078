import type { Config } from '@wiki/config';
import type { DatabasePool } from '@wiki/db';
import type { Logger } from '@wiki/events';
import type { Stoppable } from '@wiki/service';
import type { FastifyInstance } from 'fastify';
import { describeMailDestination } from '../settings.js';
import { startDigestJob } from './digest.js';
import { startMailWorker } from './queue.js';
import { createMailTransport } from './transport.js';

/** The worker, the relay's rounds and the digest job of one replica (the relay itself is the app's). */
export async function startMail(kit: {
  app: FastifyInstance;
  pool: DatabasePool;
  logger: Logger;
  config: Config;
}): Promise<Stoppable[]> {
  const { app, pool, logger, config } = kit;
  const { settings, relay } = app.notificationMail;
  const transport = createMailTransport(settings, logger);
  logger.info({ destination: describeMailDestination(settings) }, 'e-mail is on');
  const deps = {
    pool,
    peers: app.notificationPeers,
    transport,
    links: { base: settings.publicUrl, secret: config.internalTokenSecret, hours: settings.digestHours },
  };
  const worker = await startMailWorker(deps, config.redisUrl, settings, logger);
  const rounds = await relay.start();
  const digests = await startDigestJob(pool, settings.digestHours, () => relay.kick(), logger);
  const sender = {
    async stop() {
      await worker.stop(); // jobs in hand finish first
      transport.close();
    },
  };
  return [digests, rounds, sender];
}
