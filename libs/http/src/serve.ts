import {
  type Config,
  ConfigError,
  configOrExit,
  type Env,
  type ListenAddress,
  listenAddresses,
  loadConfig,
  loadConfigOrExit,
} from '@wiki/config';
import type { FastifyInstance } from 'fastify';
import { stopWithLauncher } from './launcher.js';
import { startMetricsListener } from './metrics.js';

export interface RunningApp {
  app: FastifyInstance;
  stop(): Promise<void>;
}

/** What a `main.ts` runs: how the part starts, where it listens, and its own settings. */
export interface MainOptions {
  start(config: Config): Promise<RunningApp>;
  /** Its API port. */
  port(config: Config): number;
  /** Keeps `/metrics` on loopback unless METRICS_HOST says otherwise (the gateway; see `listenAddresses`). */
  facesNetwork?: boolean;
  /**
   * Reads the part's own settings (its settings.ts) first, so that a bad value stops it naming
   * its variable before anything starts.
   */
  settings?(config: Config): unknown;
}

/** A part listening: its app, and where its API and its `/metrics` are. */
export interface ListeningPart extends RunningApp {
  name: string;
  /** The API's port (the one asked for, or the free one picked for port 0). */
  port: number;
  metricsUrl: string;
}

/**
 * Serves `/metrics` on its own address, then the API on its own (both from `listenAddresses` of
 * @wiki/config). A metrics port that is taken stops the start before the API takes any traffic.
 */
async function listenOn(
  running: RunningApp,
  addresses: { api: ListenAddress; metrics: ListenAddress },
): Promise<{ port: number; metricsUrl: string }> {
  const { app } = running;
  const metrics = await startMetricsListener(app, addresses.metrics);
  app.log.info({ host: addresses.metrics.host, port: metrics.port }, 'serving /metrics');
  await app.listen(addresses.api);
  const bound = app.server.address();
  return { port: typeof bound === 'object' && bound ? bound.port : addresses.api.port, metricsUrl: metrics.url };
}

/**
 * On the first SIGINT or SIGTERM, stops every one of `running` gracefully and together (close HTTP,
 * consumers, relay, pools), then exits: 0, or 1 when a stop failed. One handler per process,
 * however many parts it runs.
 */
function stopOnSignal(running: readonly RunningApp[]): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      for (const { app } of running) app.log.info({ signal }, 'shutting down');
      void Promise.allSettled(running.map(({ stop }) => stop())).then((results) => {
        results.forEach((result, i) => {
          if (result.status === 'rejected') running[i].app.log.error({ err: result.reason }, 'shutdown failed');
        });
        process.exit(results.some((result) => result.status === 'rejected') ? 1 : 0);
      });
    });
  }
}

/**
 * The tail of a `main.ts` run alone: listen, and on the first SIGINT or SIGTERM stop gracefully and exit.
 */
export async function serveUntilSignalled(
  running: RunningApp,
  addresses: { api: ListenAddress; metrics: ListenAddress },
): Promise<void> {
  await listenOn(running, addresses);
  stopOnSignal([running]);
}

/**
 * The whole of a `main.ts` (the service kit's `runServiceMain`, the gateway's): stop with the
 * `npm start` that launched it, read the configuration (a bad one stops with its message), start,
 * listen, and stop gracefully on a signal.
 */
export async function runMain(options: MainOptions): Promise<void> {
  stopWithLauncher();
  const config = loadConfigOrExit();
  configOrExit(() => options.settings?.(config));
  const addresses = configOrExit(() =>
    listenAddresses(config, options.port(config), { facesNetwork: options.facesNetwork }),
  );
  await serveUntilSignalled(await options.start(config), addresses);
}

/** One part of a process that runs several (npm start's one process): its main and its own environment. */
export interface ProcessPart {
  name: string;
  main: MainOptions;
  /** Its environment, never the process's own object: each part's configuration is read from it. */
  env: Env;
}

/** A part of several in one process that could not start: the error says which. */
export class PartStartError extends Error {
  constructor(
    readonly part: string,
    readonly reason: unknown,
  ) {
    super(`${part} did not start: ${reason instanceof Error ? reason.message : String(reason)}`, { cause: reason });
    this.name = 'PartStartError';
  }
}

/**
 * Starts several parts in this process, each from its own environment with its own
 * configuration, app, database pool, NATS connection, consumers, metrics and logs, exactly as each
 * starts alone; they still talk only over HTTP and NATS. Every configuration is read first (a bad
 * value throws its ConfigError, naming the part, before anything opens), then the parts start
 * together. When one fails, the ones that started are stopped and a PartStartError names it.
 */
export async function startParts(parts: readonly ProcessPart[]): Promise<ListeningPart[]> {
  const prepared = parts.map((part) => {
    try {
      const config = loadConfig(part.env);
      part.main.settings?.(config);
      const addresses = listenAddresses(config, part.main.port(config), { facesNetwork: part.main.facesNetwork });
      return { part, config, addresses };
    } catch (error) {
      if (error instanceof ConfigError) error.message = `${part.name}: ${error.message}`;
      throw error;
    }
  });
  sameForEveryPart(prepared);
  const results = await Promise.allSettled(
    prepared.map(async ({ part, config, addresses }): Promise<ListeningPart> => {
      let running: RunningApp | undefined;
      try {
        running = await part.main.start(config);
        return { name: part.name, ...running, ...(await listenOn(running, addresses)) };
      } catch (error) {
        await running?.stop().catch(() => undefined);
        throw new PartStartError(part.name, error);
      }
    }),
  );
  const started = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) {
    await Promise.allSettled(started.map((part) => part.stop()));
    throw failed.reason;
  }
  return started;
}

/**
 * What stays process-wide in libs/events (the outbox's event size cap, lowered under the one NATS
 * server's max_payload) must then be the same for every part: npm start gives them all one
 * EVENT_MAX_BYTES and NATS_URL, and this refuses a mix rather than letting the last part win.
 */
function sameForEveryPart(prepared: ReadonlyArray<{ part: ProcessPart; config: Config }>): void {
  const [first, ...others] = prepared;
  for (const { part, config } of others) {
    if (config.eventMaxBytes !== first.config.eventMaxBytes)
      throw new ConfigError('EVENT_MAX_BYTES', `must be the same for every part of one process (${part.name})`);
    if (config.natsUrl !== first.config.natsUrl)
      throw new ConfigError('NATS_URL', `must be the same for every part of one process (${part.name})`);
  }
}

/**
 * The whole of npm start's one process: stop with the launcher, start every part (a bad
 * configuration exits 78 naming the part and its variable; a part that cannot start exits 1, having
 * stopped the others), and on the first SIGINT or SIGTERM stop them all together and exit.
 */
export async function runParts(parts: readonly ProcessPart[]): Promise<ListeningPart[]> {
  stopWithLauncher();
  let started: ListeningPart[];
  try {
    started = await startParts(parts);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  stopOnSignal(started);
  return started;
}
