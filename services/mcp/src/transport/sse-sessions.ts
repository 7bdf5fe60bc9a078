import type { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { type NatsConnection, RequestError, type Subscription } from '@nats-io/transport-node';
import { verifyIdentityToken } from '@wiki/auth';
import type { Caller } from '../clients/as-user.js';
import { authInfoOf } from '../tools/server.js';

/**
 * The SSE transport's sessions across replicas. The GET stream lives on one replica; the POSTs of
 * the same session may reach any. A replica that holds a stream subscribes to the session's own
 * NATS core subject (outside the event stream's subjects, so nothing is stored); a POST that
 * reaches another replica is sent there as a NATS request, and "no responders" means the session
 * is gone. The receiving replica checks the forwarded identity token again and that it is the
 * session owner's before the message enters the session.
 */

export type Delivery = 'accepted' | 'not-found' | 'invalid' | 'too-large' | 'too-deep' | 'no-answer';

/** Comment lines keep idle streams open through proxies and load balancers. */
export const HEARTBEAT_MS = 25_000;
/** How long a replica waits for the one holding the stream to take a routed message. */
const ROUTE_TIMEOUT_MS = 5_000;
/** How long a new stream waits for NATS to confirm its subscription before it starts anyway. */
const FLUSH_WAIT_MS = 1_000;

const delay = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

interface Session {
  transport: SSEServerTransport;
  userId: string;
  subscription?: Subscription;
  heartbeat: NodeJS.Timeout;
}

interface Routed {
  identityToken: string;
  requestId?: string;
  message: unknown;
}

export interface SseSessionsOptions {
  /** `_MCP.<events prefix>.session`: the base of the per-session subjects. */
  subjectBase: string;
  internalTokenSecret: string;
  logger: { warn(obj: object, msg?: string): void };
}

export class SseSessions {
  private readonly sessions = new Map<string, Session>();
  private nc: NatsConnection | undefined;

  constructor(private readonly options: SseSessionsOptions) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Starts routing over `nc` (the service's NATS connection). */
  attach(nc: NatsConnection): void {
    this.nc = nc;
    for (const [id, session] of this.sessions) session.subscription ??= this.subscribe(id);
  }

  /** Stops routing (shutdown, after the streams have ended). */
  async detach(): Promise<void> {
    for (const session of this.sessions.values()) {
      session.subscription?.unsubscribe();
      session.subscription = undefined;
    }
    this.nc = undefined;
  }

  /**
   * Registers a stream before its endpoint event is written, and waits until the NATS server knows
   * the subscription, so that a POST reaching another replica right after finds it.
   */
  async add(transport: SSEServerTransport, userId: string, write: (chunk: string) => void): Promise<void> {
    const id = transport.sessionId;
    const heartbeat = setInterval(() => write(': ping\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    this.sessions.set(id, { transport, userId, heartbeat, subscription: this.subscribe(id) });
    // Bounded: with NATS away the stream still works on this replica; only routing waits for it.
    if (this.nc) await Promise.race([this.nc.flush().catch(() => undefined), delay(FLUSH_WAIT_MS)]);
  }

  remove(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    this.sessions.delete(sessionId);
    clearInterval(session.heartbeat);
    // Drain, not unsubscribe: a message already on its way is still answered ("not-found") rather
    // than dropped, which would leave its sender waiting for the timeout.
    void session.subscription?.drain().catch(() => undefined);
  }

  /** Ends every stream (shutdown): clients reconnect to another replica. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
  }

  /** Delivers a POSTed message to its session, here or on the replica that holds it. */
  async deliver(sessionId: string, caller: Caller, message: unknown): Promise<Delivery> {
    const local = this.sessions.get(sessionId);
    if (local) return this.deliverHere(local, caller, message);
    if (!this.nc) return 'not-found';
    let payload: string;
    try {
      payload = JSON.stringify({
        identityToken: caller.identityToken,
        requestId: caller.requestId,
        message,
      } satisfies Routed);
    } catch {
      // JSON.parse took it, but it is nested deeper than JSON.stringify can recurse (RangeError).
      return 'too-deep';
    }
    const max = this.nc.info?.max_payload ?? 1024 * 1024;
    if (Buffer.byteLength(payload) > max - 1024) return 'too-large';
    try {
      const reply = await this.nc.request(this.subject(sessionId), payload, { timeout: ROUTE_TIMEOUT_MS });
      return reply.json<{ delivery: Delivery }>().delivery;
    } catch (error) {
      if (error instanceof RequestError && error.isNoResponders()) return 'not-found';
      this.options.logger.warn(
        { sessionId, cause: (error as Error).message },
        'the replica holding an MCP session did not answer',
      );
      return 'no-answer';
    }
  }

  private async deliverHere(session: Session, caller: Caller, message: unknown): Promise<Delivery> {
    // A session id is only ever used by the user who opened the stream; anyone else finds nothing.
    if (caller.userId !== session.userId) return 'not-found';
    try {
      await session.transport.handleMessage(message, { authInfo: authInfoOf(caller) });
      return 'accepted';
    } catch {
      return 'invalid';
    }
  }

  private subject(sessionId: string): string {
    return `${this.options.subjectBase}.${sessionId}`;
  }

  private subscribe(sessionId: string): Subscription | undefined {
    if (!this.nc) return undefined;
    return this.nc.subscribe(this.subject(sessionId), {
      callback: (error, msg) => {
        if (error) return;
        void this.takeRouted(sessionId, msg.string()).then(
          (delivery) => msg.respond(JSON.stringify({ delivery })),
          (cause) => this.options.logger.warn({ cause: String(cause), sessionId }, 'routed MCP message failed'),
        );
      },
    });
  }

  private async takeRouted(sessionId: string, data: string): Promise<Delivery> {
    const session = this.sessions.get(sessionId);
    if (!session) return 'not-found';
    let routed: Routed;
    try {
      routed = JSON.parse(data) as Routed;
    } catch {
      return 'invalid';
    }
    let userId: string | undefined;
    try {
      const identity = await verifyIdentityToken(this.options.internalTokenSecret, routed.identityToken);
      userId = identity.kind === 'mcp' ? identity.userId : undefined;
    } catch {
      return 'not-found';
    }
    if (!userId) return 'not-found';
    return this.deliverHere(
      session,
      { identityToken: routed.identityToken, userId, requestId: routed.requestId },
      routed.message,
    );
  }
}
