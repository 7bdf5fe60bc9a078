import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { CLIENT_ADDRESS_HEADER } from '@wiki/auth';
import type { Config } from '@wiki/config';
import {
  addScrapeCounter,
  addScrapeGauge,
  createApp,
  type HealthCheck,
  isShuttingDown,
  registerHealth,
} from '@wiki/http';
import { ConnectionSlots, closeLimitsRedis, createLimitsRedis, redisReady, TokenBucket } from '@wiki/limits';
import { createServiceClient } from '@wiki/service-client';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer } from 'ws';
import { blockEditor } from './block-editor.js';
import { CollabServer, shownUserOf } from './collab-server.js';
import { DocumentsApi } from './documents-api.js';
import { forceAwarenessUser } from './domain/awareness.js';
import { loadCollabSettings } from './settings.js';

/** The WebSocket path, here and at the gateway (ARCHITECTURE 5.15). */
export const COLLAB_PATH = '/collab';
/** A room's whole state may reach 10 MiB (spec 4.10's limit on saved state): the first sync carries it. */
const MAX_MESSAGE_BYTES = 12 * 1024 * 1024;
/** How long a stop waits for the rooms to be stored (inside Kubernetes' 30 s grace period). */
const STOP_STORE_WAIT_MS = 15_000;
/** After start, before the block editor is loaded: out of the way of the start itself. */
const WARM_EDITOR_AFTER_MS = 500;
/** The close a socket gets for sending faster than COLLAB_UPDATES_PER_SECOND / COLLAB_UPDATES_BURST allow. */
export const TOO_MANY_UPDATES = { code: 4429, reason: 'too many updates' } as const;

declare module 'fastify' {
  interface FastifyInstance {
    /** The rooms and connections this replica holds. */
    collabServer: CollabServer;
  }
}

export interface AppDeps {
  /** Readiness checks: the kit's (NATS). */
  checks: Record<string, HealthCheck>;
  logLevel?: string;
}

function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * The collaboration server's app: Fastify for health (`/health/live`, `/health/ready`: NATS
 * answers and it is not stopping) and the WebSocket at /collab on the same port. It owns no
 * database; the kit connects NATS and starts the replication and the event subscriptions
 * (service.ts). Stopping refuses new upgrades from its first step (readiness off), then, before
 * HTTP drains, stores every open room and closes the sockets.
 */
export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const app = await createApp({
    service: 'collab',
    env: config.env,
    logLevel: deps.logLevel ?? config.logLevel,
    openapi: { title: 'Collaboration server', description: 'Hocuspocus/Yjs over WebSocket at /collab' },
  });
  registerHealth(app, deps.checks);

  // COLLAB_CONNECTIONS_PER_USER across replicas: past it a new connection is refused (ARCHITECTURE 5.14).
  const settings = loadCollabSettings(config.env);
  const redis = createLimitsRedis(config.redisUrl);
  await redisReady(redis);
  const slots = new ConnectionSlots({
    kind: 'collab-connections',
    limit: settings.connectionsPerUser,
    atLimit: 'refuse',
    redis,
    keyPrefix: `${config.dbPrefix}:limits:`,
    subjectPrefix: `${config.eventsPrefix}-limits`,
    logger: app.log,
  });
  const documents = new DocumentsApi(createServiceClient({ service: 'collab', config, logger: app.log }));
  const server = new CollabServer(documents, app.log, settings, slots);
  app.decorate('collabServer', server);
  addScrapeGauge(app, {
    name: 'collab_documents_open',
    help: 'Documents (rooms) this replica holds in memory',
    read: () => server.hocuspocus.getDocumentsCount(),
  });
  addScrapeGauge(app, {
    name: 'collab_connections_open',
    help: 'Editor WebSocket connections this replica holds',
    read: () => server.hocuspocus.getConnectionsCount(),
  });
  let throttledSockets = 0;
  addScrapeCounter(app, {
    name: 'collab_connections_refused_total',
    help: 'Connections refused because their user held COLLAB_CONNECTIONS_PER_USER already',
    read: () => slots.refused,
  });
  addScrapeCounter(app, {
    name: 'collab_sockets_throttled_total',
    help: 'Sockets closed for sending faster than COLLAB_UPDATES_PER_SECOND (burst COLLAB_UPDATES_BURST)',
    read: () => throttledSockets,
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== COLLAB_PATH) return refuseUpgrade(socket, 404, 'Not Found');
    if (isShuttingDown(app)) return refuseUpgrade(socket, 503, 'Service Unavailable');
    wss.handleUpgrade(request, socket, head, (ws) => {
      ws.once('close', () => server.releaseSlotsOf(request));
      // Every message a client sends costs a token, whatever it is (an update, an awareness
      // change, or one queued before authentication): a flood is disconnected, and the provider
      // reconnects after its back-off and syncs what it holds, so nothing typed is lost.
      const bucket = new TokenBucket(settings.updatesPerSecond, settings.updatesBurst);
      let throttled = false;
      // Every message passes the awareness rewrite before Hocuspocus sees it (also the ones it
      // queues during authentication and emits again afterwards).
      const emit = ws.emit.bind(ws);
      ws.emit = ((event: string, ...args: unknown[]) => {
        if (event === 'message' && args[0] instanceof Uint8Array) {
          if (throttled) return false;
          // ws emits what arrives with (data, isBinary); Hocuspocus re-emits what it queued during
          // authentication with (data) alone: that one was paid for when it arrived.
          const arrived = args.length >= 2;
          if (arrived && !bucket.take()) {
            throttled = true;
            throttledSockets += 1;
            app.log.info(
              { clientAddress: request.headers[CLIENT_ADDRESS_HEADER] },
              'collab: a client sent too many messages; disconnected',
            );
            ws.close(TOO_MANY_UPDATES.code, TOO_MANY_UPDATES.reason);
            return false;
          }
          try {
            args[0] = forceAwarenessUser(args[0], (name) => shownUserOf(request, name));
          } catch {
            ws.close(1007, 'unreadable message');
            return false;
          }
        }
        return emit(event, ...args);
      }) as typeof ws.emit;
      server.hocuspocus.handleConnection(ws, request);
    });
  });

  // The block editor (about 25 MB) is loaded in the background once the app is up, so the first
  // room opened on this replica does not wait for it (issue 27 point 11: a cold open within 1.5 s).
  app.addHook('onReady', async () => {
    setTimeout(() => {
      blockEditor().catch((error: unknown) => app.log.warn({ err: error }, 'collab: the block editor did not load'));
    }, WARM_EDITOR_AFTER_MS).unref();
  });

  // Open sockets would hold HTTP's drain up: store every room and close them first.
  app.addHook('preClose', async () => {
    await server.flush();
    server.hocuspocus.closeConnections();
    // Closing a room stores what it holds (beforeUnloadDocument): wait for that, within reason.
    const deadline = Date.now() + STOP_STORE_WAIT_MS;
    while (server.hocuspocus.getDocumentsCount() > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const client of wss.clients) client.terminate();
    wss.close();
  });
  app.addHook('onClose', async () => {
    await slots.close();
    await closeLimitsRedis(redis);
  });
  return app;
}
