import { IDENTITY_HEADER, serviceTokenSource } from '@wiki/auth';
import type { Config, ServiceName } from '@wiki/config';
import { AppError } from '@wiki/http';
import { traceHeaders } from '@wiki/tracing';
import { Agent, type Dispatcher, request } from 'undici';
import { PeerReplicas, type PeerUrlsConfig } from './peer-replicas.js';

/** How long a call may take, answer read included, unless the client or the call says otherwise. */
export const SERVICE_CALL_TIMEOUT_MS = 5_000;

export interface ServiceClientLogger {
  error(obj: object, msg?: string): void;
}

export interface ServiceClientOptions {
  /** The calling service, named in the identity tokens (kind `service`) its calls carry. */
  service: string;
  /**
   * The peers' base URLs, read at every call: every replica of a peer (`replicaUrls`) when its
   * `<PEER>_URL` lists several, and the secret the tokens are signed with.
   */
  config: PeerUrlsConfig & Pick<Config, 'internalTokenSecret'>;
  /** Where a failed call is logged, once, with its cause. */
  logger: ServiceClientLogger;
  timeoutMs?: number;
  /** By default one keep-alive Agent shared by every client of the process. */
  dispatcher?: Dispatcher;
}

export interface CallOptions<T> {
  /**
   * The `x-request-id` of the request being served, so that the peer's log lines carry it too.
   * Passed explicitly: an AsyncLocalStorage would find it by itself, but on Node 20 it slows every
   * promise of the process (docs/DECISIONS.md).
   */
  requestId?: string;
  timeoutMs?: number;
  /** Checks and shapes the answer's `data`; what it throws is a failure of the peer (503). */
  parse?: (data: unknown) => T;
  /**
   * For a 4xx answer other than 404: the error to throw instead of the 503, when the caller gives
   * that refusal a meaning (the gateway: the workspace service refusing a sign-in is a 401).
   */
  refusal?: (status: number) => Error | undefined;
}

/**
 * Calls another service's JSON routes (`/internal/...`) as this service. The answer is the `data`
 * of the peer's envelope (ARCHITECTURE 5.1); a 404 is null. Anything else (refused connection,
 * timeout, 5xx, an unexpected status, a body that is not the JSON expected) is logged once and
 * thrown as a 503 SERVICE_UNAVAILABLE, which is what the caller's client then sees.
 *
 * A peer with several replicas gets the calls round robin (PeerReplicas). A call whose connection
 * was refused goes once to another replica; so does a GET whose connection was lost, but never a
 * POST that was sent: the peer may have run it.
 */
export interface ServiceClient {
  get<T = unknown>(peer: ServiceName, path: string, options?: CallOptions<T>): Promise<T | null>;
  post<T = unknown>(peer: ServiceName, path: string, body: unknown, options?: CallOptions<T>): Promise<T | null>;
  /**
   * A route that answers a file rather than an envelope (e.g. an attachment's bytes): its body and
   * type, null for a 404, failures as for `get`. An answer longer than `maxBytes` is a failure,
   * found from its Content-Length or, when that lies or is missing, as soon as that many bytes came:
   * the caller never holds more than it asked for.
   */
  getBytes(peer: ServiceName, path: string, options: BytesCallOptions): Promise<BytesAnswer | null>;
}

export interface BytesCallOptions extends Omit<CallOptions<never>, 'parse'> {
  maxBytes: number;
}

export interface BytesAnswer {
  bytes: Uint8Array;
  /** The peer's Content-Type, '' when it sent none. */
  contentType: string;
}

let sharedAgent: Agent | undefined;

/**
 * Keep-alive connections to every peer, reused across calls. Idle connections do not hold the
 * process open, so the agent is never closed.
 */
function agent(): Agent {
  sharedAgent ??= new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  return sharedAgent;
}

/** What a call got, short of a failure. */
type Outcome<T> = { data: T | null } | { refused: Error };

/** A peer's answer outside 2xx: 404 is no data, a 4xx the caller maps is a refusal, anything else a failure. */
async function notOk(
  res: { statusCode: number; body: { dump(): Promise<void> } },
  call: { refusal?: (status: number) => Error | undefined },
): Promise<{ data: null } | { refused: Error }> {
  const status = res.statusCode;
  await res.body.dump();
  if (status === 404) return { data: null };
  const refused = status < 500 ? call.refusal?.(status) : undefined;
  if (refused) return { refused };
  throw new Error(`answered ${status}`);
}

/** Created once per process (in its app) and handed to whatever calls a peer. */
export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const { config, logger } = options;
  const token = serviceTokenSource(config.internalTokenSecret, options.service);
  const dispatcher = options.dispatcher ?? agent();
  const defaultTimeoutMs = options.timeoutMs ?? SERVICE_CALL_TIMEOUT_MS;
  const replicas = new PeerReplicas(config);

  async function attempt<T>(
    method: 'GET' | 'POST',
    origin: string,
    path: string,
    body: unknown,
    call: CallOptions<T>,
    signal: AbortSignal,
  ): Promise<Outcome<T>> {
    const headers: Record<string, string> = { [IDENTITY_HEADER]: await token(), accept: 'application/json' };
    if (call.requestId) headers['x-request-id'] = call.requestId;
    addTraceContext(headers);
    let payload: string | undefined;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    const res = await request(`${origin}${path}`, { method, headers, body: payload, dispatcher, signal });
    const status = res.statusCode;
    if (status < 200 || status >= 300) return notOk(res, call);
    const answer = (await res.body.json()) as { data?: unknown } | null;
    if (answer?.data === undefined) throw new Error(`answered ${status} without data`);
    return { data: call.parse ? call.parse(answer.data) : (answer.data as T) };
  }

  async function attemptBytes(
    origin: string,
    path: string,
    call: BytesCallOptions,
    signal: AbortSignal,
  ): Promise<Outcome<BytesAnswer>> {
    const headers: Record<string, string> = { [IDENTITY_HEADER]: await token(), accept: '*/*' };
    if (call.requestId) headers['x-request-id'] = call.requestId;
    addTraceContext(headers);
    const res = await request(`${origin}${path}`, { method: 'GET', headers, dispatcher, signal });
    const status = res.statusCode;
    if (status < 200 || status >= 300) return notOk(res, call);
    const tooLong = () => {
      // Destroying the body closes its connection rather than reading the rest to reuse it; the
      // abort it then emits is this call's failure, already thrown, not the process's.
      res.body.on('error', () => undefined);
      res.body.destroy();
      return new Error(`answered more than ${call.maxBytes} bytes`);
    };
    if (Number(res.headers['content-length']) > call.maxBytes) throw tooLong();
    const chunks: Buffer[] = [];
    let length = 0;
    for await (const chunk of res.body) {
      length += (chunk as Buffer).byteLength;
      if (length > call.maxBytes) throw tooLong();
      chunks.push(chunk as Buffer);
    }
    const type = res.headers['content-type'];
    return { data: { bytes: Buffer.concat(chunks, length), contentType: typeof type === 'string' ? type : '' } };
  }

  async function send<T>(
    method: 'GET' | 'POST' | 'BYTES',
    peer: ServiceName,
    path: string,
    body: unknown,
    call: CallOptions<T> = {},
  ): Promise<T | null> {
    const httpMethod = method === 'BYTES' ? 'GET' : method;
    // One deadline for the call, a retry on another replica included.
    const signal = AbortSignal.timeout(call.timeoutMs ?? defaultTimeoutMs);
    const run = (origin: string): Promise<Outcome<T>> =>
      method === 'BYTES'
        ? (attemptBytes(origin, path, call as BytesCallOptions, signal) as Promise<Outcome<T>>)
        : attempt(method, origin, path, body, call, signal);
    const outcome = await replicas.call(peer, httpMethod, run, (error, origin) => {
      logger.error(
        { peer, replica: origin, method: httpMethod, path, requestId: call.requestId, cause: describe(error) },
        `call to the ${peer} service failed`,
      );
      return new AppError('SERVICE_UNAVAILABLE', `The ${peer} service is unavailable`);
    });
    if ('refused' in outcome) throw outcome.refused;
    return outcome.data;
  }

  return {
    get: (peer, path, call) => send('GET', peer, path, undefined, call),
    post: (peer, path, body, call) => send('POST', peer, path, body, call),
    getBytes: (peer, path, call) => send<BytesAnswer>('BYTES', peer, path, undefined, call),
  };
}

/** The cause in one line: the error's name and message, and its own cause (undici's socket errors). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.name}: ${error.message}${cause}`;
}

/** With tracing on, the current span (the caller's request or event) becomes the peer's parent. */
function addTraceContext(headers: Record<string, string>): void {
  const trace = traceHeaders();
  if (trace) Object.assign(headers, trace);
}
