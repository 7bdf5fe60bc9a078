import type { Config, ServiceName } from '@wiki/config';
import type { FastifyBaseLogger } from 'fastify';

// What a refused or lost connection means for sending a request again is decided once, in
// libs/service-client, for the gateway and the service client alike: any request that never reached a
// replica, and a read whose connection broke before its answer (a write is never sent twice).
export { isConnectError, mayRetryElsewhere } from '@wiki/service-client';

/** Whether a service's answer says its replica is leaving (it stopped keeping connections: see markShuttingDown). */
export function saysLeaving(connection: string | string[] | undefined): boolean {
  return typeof connection === 'string' && connection.toLowerCase() === 'close';
}

export interface ReplicaOptions {
  /** How often each replica of a service with several is asked `GET /health/ready`. */
  checkIntervalMs: number;
  checkTimeoutMs: number;
  log?: FastifyBaseLogger;
}

export const DEFAULT_REPLICA_OPTIONS: ReplicaOptions = { checkIntervalMs: 2_000, checkTimeoutMs: 1_500 };

/**
 * The replicas of each service (`<SERVICE>_URL` may list several) and which of them answer.
 * Requests go round robin over the replicas last seen healthy; a replica is taken out when its
 * readiness check fails, a connection to it is refused or one of its answers says
 * `Connection: close` (it has begun to stop: learnt from the first answer rather than from the
 * next check, up to 2 s later), and back in when its check passes again.
 * With one replica nothing is checked and that replica is always used, as before replicas existed.
 *
 * Origins are read from the config on every pick: tests set a service's URL after the gateway
 * was built.
 */
export class Replicas {
  private readonly cursor = new Map<ServiceName, number>();
  /**
   * Replicas out of rotation, and why: `gone` (it said it is stopping or unready, or refused a
   * connection) or `slow` (its check only timed out: on a loaded machine a healthy replica may).
   */
  private readonly down = new Map<string, 'gone' | 'slow'>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly config: Config,
    private readonly options: ReplicaOptions = DEFAULT_REPLICA_OPTIONS,
  ) {}

  /** Every origin of `service`: the list when several are configured, else its one URL. */
  origins(service: ServiceName): string[] {
    const listed = this.config.replicaUrls?.[service];
    return listed && listed.length > 1 ? listed : [this.config.urls[service]];
  }

  /**
   * The next replica to use, never `exclude` (the one that just refused a connection). When every
   * other replica is marked down one is still returned (marks may be stale, and a 503 is what a
   * failed attempt gives anyway): a slow one rather than one that said it is going, which may be
   * closing its connections (a write sent there as it closes would be lost); undefined only when
   * `exclude` was the sole replica.
   */
  pick(service: ServiceName, exclude?: string): string | undefined {
    const origins = this.origins(service);
    if (origins.length === 1) return origins[0] === exclude ? undefined : origins[0];
    const start = this.cursor.get(service) ?? 0;
    let fallback: string | undefined;
    let slowFallback: string | undefined;
    for (let i = 0; i < origins.length; i++) {
      const index = (start + i) % origins.length;
      const origin = origins[index];
      if (origin === exclude) continue;
      const why = this.down.get(origin);
      if (why !== undefined) {
        if (why === 'slow') slowFallback ??= origin;
        fallback ??= origin;
        continue;
      }
      this.cursor.set(service, index + 1);
      return origin;
    }
    this.cursor.set(service, start + 1);
    return slowFallback ?? fallback;
  }

  isUp(origin: string): boolean {
    return !this.down.has(origin);
  }

  markDown(service: ServiceName, origin: string, why: 'gone' | 'slow' = 'gone'): void {
    const before = this.down.get(origin);
    // A check that only timed out says nothing new about a replica that said it is going.
    if (this.origins(service).length < 2 || before === why || (before === 'gone' && why === 'slow')) return;
    this.down.set(origin, why);
    if (before === undefined)
      this.options.log?.warn({ service, replica: origin, why }, 'replica taken out of rotation');
  }

  private markUp(service: ServiceName, origin: string): void {
    if (this.down.delete(origin)) this.options.log?.info({ service, replica: origin }, 'replica back in rotation');
  }

  /** Starts the periodic readiness checks (only services with several replicas are checked). */
  start(services: readonly ServiceName[]): void {
    const run = async () => {
      const checks: Promise<void>[] = [];
      for (const service of services) {
        const origins = this.origins(service);
        if (origins.length < 2) continue;
        for (const origin of origins) {
          checks.push(
            ready(origin, this.options.checkTimeoutMs).then((state) =>
              state === 'ready' ? this.markUp(service, origin) : this.markDown(service, origin, state),
            ),
          );
        }
      }
      await Promise.all(checks);
      // The next round is scheduled after this one ended, so slow checks never pile up.
      if (!this.stopped) this.timer = setTimeout(run, this.options.checkIntervalMs).unref();
    };
    void run();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}

/**
 * What `origin`'s readiness probe says: `ready` (a 2xx in time), `gone` (another answer, or no
 * connection) or `slow` (no answer in time).
 */
export async function ready(origin: string, timeoutMs: number): Promise<'ready' | 'gone' | 'slow'> {
  try {
    const response = await fetch(`${origin}/health/ready`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    return response.ok ? 'ready' : 'gone';
  } catch (error) {
    return (error as Error).name === 'TimeoutError' ? 'slow' : 'gone';
  }
}
