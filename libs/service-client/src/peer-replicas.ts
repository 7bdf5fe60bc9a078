import type { Config, ServiceName } from '@wiki/config';

/** How long a replica that refused a connection is passed over, unless every other one is too. */
export const REFUSED_BACKOFF_MS = 2_000;

/**
 * Error codes that mean a connection was never made: nothing of the request reached the replica,
 * so sending it to another one cannot make it run twice, whatever its method.
 */
const CONNECT_ERRORS = new Set([
  'ECONNREFUSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * Error codes of a connection lost after the request went out (a replica stopping, a keep-alive
 * connection it had closed). The replica may have started on the request: only a read (GET, HEAD,
 * OPTIONS) is sent again. A timeout is neither: the call's time is spent.
 */
const LOST_ERRORS = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

function codesOf(error: unknown): [string | undefined, string | undefined] {
  const e = error as { code?: string; cause?: { code?: string } } | null;
  return [e?.code, e?.cause?.code];
}

/** Whether `error` (or its cause, as fetch wraps it) is a failure to connect. */
export function isConnectError(error: unknown): boolean {
  const [code, cause] = codesOf(error);
  return CONNECT_ERRORS.has(code ?? '') || CONNECT_ERRORS.has(cause ?? '');
}

/** Whether a call that failed with `error` may go to another replica. */
export function mayRetryElsewhere(method: string, error: unknown): boolean {
  if (isConnectError(error)) return true;
  if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') return false;
  const [code, cause] = codesOf(error);
  return LOST_ERRORS.has(code ?? '') || LOST_ERRORS.has(cause ?? '');
}

export type PeerUrlsConfig = Pick<Config, 'urls'> & Partial<Pick<Config, 'replicaUrls' | 'gatewayUrl'>>;

/** A service, or the gateway (whose internal routes collab calls; one URL, GATEWAY_URL). */
export type Peer = ServiceName | 'gateway';

/**
 * Where a process's calls to a peer go when `<PEER>_URL` lists several replicas: round robin,
 * passing over for a short while (REFUSED_BACKOFF_MS) a replica that refused a connection, so a
 * stopped replica costs one refused connect per back-off rather than one per call. No timers and
 * no health checks of its own: a refusal is noticed by the call that met it (which then goes to
 * another replica), and the replica is tried again when its back-off ends. With one URL (as in
 * Kubernetes, where a Service spreads) that URL is always used and nothing is kept.
 *
 * The URLs are read from the config on every pick: tests point a peer elsewhere after the client
 * was built. A `urls` entry that is not the first of `replicaUrls` was set that way and wins.
 */
export class PeerReplicas {
  private readonly cursor = new Map<Peer, number>();
  /** Replica origin -> until when (epoch ms) it is passed over. */
  private readonly refusedUntil = new Map<string, number>();

  constructor(
    private readonly config: PeerUrlsConfig,
    private readonly backoffMs = REFUSED_BACKOFF_MS,
  ) {}

  /** Every base URL of `peer`. */
  origins(peer: Peer): readonly string[] {
    if (peer === 'gateway') {
      if (!this.config.gatewayUrl) throw new Error('no gateway URL to call');
      return [this.config.gatewayUrl];
    }
    const one = this.config.urls[peer];
    const listed = this.config.replicaUrls?.[peer];
    return listed && listed.length > 1 && listed[0] === one ? listed : [one];
  }

  /**
   * The replica for the next call, never `exclude` (the one that just failed). A replica in its
   * back-off is used only when every other one is too (the marks may be stale, and the call fails
   * anyway otherwise); undefined only when `exclude` is the sole replica.
   */
  pick(peer: Peer, exclude?: string): string | undefined {
    const origins = this.origins(peer);
    if (origins.length === 1) return origins[0] === exclude ? undefined : origins[0];
    const start = this.cursor.get(peer) ?? 0;
    const now = this.refusedUntil.size > 0 ? Date.now() : 0;
    let fallback: string | undefined;
    for (let i = 0; i < origins.length; i++) {
      const index = (start + i) % origins.length;
      const origin = origins[index];
      if (origin === exclude) continue;
      if (now > 0 && this.inBackoff(origin, now)) {
        fallback ??= origin;
        continue;
      }
      this.cursor.set(peer, (index + 1) % origins.length);
      return origin;
    }
    this.cursor.set(peer, (start + 1) % origins.length);
    return fallback;
  }

  /**
   * Runs `attempt` on the next replica of `peer`, and once more on another replica when it failed
   * in a way that allows it (mayRetryElsewhere). A failure of the last attempt is handed to
   * `failed` with the replica it met, and what that returns is thrown.
   */
  async call<R>(
    peer: Peer,
    method: string,
    attempt: (origin: string) => Promise<R>,
    failed: (error: unknown, origin: string) => Error,
  ): Promise<R> {
    let origin = this.pick(peer) as string;
    try {
      return await attempt(origin);
    } catch (error) {
      if (isConnectError(error)) this.refused(origin);
      const other = mayRetryElsewhere(method, error) ? this.pick(peer, origin) : undefined;
      if (other === undefined) throw failed(error, origin);
      origin = other;
    }
    try {
      return await attempt(origin);
    } catch (error) {
      if (isConnectError(error)) this.refused(origin);
      throw failed(error, origin);
    }
  }

  /** `origin` refused a connection: pass it over for the back-off. */
  refused(origin: string): void {
    this.refusedUntil.set(origin, Date.now() + this.backoffMs);
  }

  private inBackoff(origin: string, now: number): boolean {
    const until = this.refusedUntil.get(origin);
    if (until === undefined) return false;
    if (until > now) return true;
    this.refusedUntil.delete(origin);
    return false;
  }
}
