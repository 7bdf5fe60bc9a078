import type { IncomingHttpHeaders } from 'node:http';
import { IDENTITY_HEADER, INTERNAL_API_KEY_HEADER, serviceTokenSource } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { AppError } from '@wiki/http';
import { traceHeaders } from '@wiki/tracing';
import { Agent, type Dispatcher, FormData, request } from 'undici';
import { type Peer, PeerReplicas, type PeerUrlsConfig } from './peer-replicas.js';

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
   * `<PEER>_URL` lists several, and the secret the tokens are signed with. `gatewayUrl` and
   * `internalApiKey` only for a client that calls the gateway's internal routes (collab).
   */
  config: PeerUrlsConfig & Pick<Config, 'internalTokenSecret'> & Partial<Pick<Config, 'internalApiKey'>>;
  /** Where a failed call is logged, once, with its cause. */
  logger: ServiceClientLogger;
  timeoutMs?: number;
  /** By default one keep-alive Agent shared by every client of the process. */
  dispatcher?: Dispatcher;
}

/** The `error` of a peer's refusal envelope (ARCHITECTURE 5.1), as far as the peer sent one. */
export interface PeerError {
  code?: string;
  message?: string;
  details?: unknown;
}

export interface SendOptions {
  /**
   * The `x-request-id` of the request being served, so that the peer's log lines carry it too.
   * Passed explicitly: an AsyncLocalStorage would find it by itself, but on Node 20 it slows every
   * promise of the process (docs/DECISIONS.md).
   */
  requestId?: string;
  timeoutMs?: number;
  /**
   * The identity token of the user the call is made for (the MCP key's user), sent on instead of
   * this service's own: the peer then checks the user's permissions as for a REST call. Calls to
   * the gateway carry the internal API key instead, whatever this says.
   */
  identityToken?: string;
}

export interface CallOptions<T> extends SendOptions {
  /** Checks and shapes the answer's `data`; what it throws is a failure of the peer (503). */
  parse?: (data: unknown) => T;
  /**
   * For a 4xx answer other than 404: the error to throw instead of the 503, when the caller gives
   * that refusal a meaning (the gateway: the workspace service refusing a sign-in is a 401).
   * `error` is the refusal's envelope error, when its body was one.
   */
  refusal?: (status: number, error: PeerError | undefined) => Error | undefined;
}

/**
 * A multipart/form-data body (undici's FormData: Node's global one is another undici's, which this
 * client's cannot send).
 */
export { FormData as MultipartBody };

/** A peer's 2xx or 4xx answer, as a caller of `send` reads it. */
export interface PeerAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as JSON (null when empty); a body that is not JSON is the peer's failure. */
  json(): Promise<unknown>;
  /** The body's bytes; more than `maxBytes` of them is the peer's failure, found before they are all read. */
  bytes(maxBytes: number): Promise<Uint8Array>;
}

export interface SendRequest extends SendOptions {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** Sent as JSON, except a MultipartBody (a file and its fields, multipart/form-data). */
  body?: unknown;
  /** The `accept` header; JSON by default. */
  accept?: string;
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
  get<T = unknown>(peer: Peer, path: string, options?: CallOptions<T>): Promise<T | null>;
  post<T = unknown>(peer: Peer, path: string, body: unknown, options?: CallOptions<T>): Promise<T | null>;
  put<T = unknown>(peer: Peer, path: string, body: unknown, options?: CallOptions<T>): Promise<T | null>;
  /**
   * A route that answers a file rather than an envelope (e.g. an attachment's bytes): its body and
   * type, null for a 404, failures as for `get`. An answer longer than `maxBytes` is a failure,
   * found from its Content-Length or, when that lies or is missing, as soon as that many bytes came:
   * the caller never holds more than it asked for.
   */
  getBytes(peer: Peer, path: string, options: BytesCallOptions): Promise<BytesAnswer | null>;
  /**
   * The call the others are made of, for a caller that reads the answer itself (its status,
   * headers, a body that is no envelope): `read` gets every 2xx and 4xx answer and runs within the
   * call, so that what it throws, like an answer of any other status, a refused connection or the
   * timeout, is the peer's failure (logged once, a 503). Replicas, retries, the deadline, the
   * credential and the trace context are the same as for every call.
   */
  send<T>(peer: Peer, request: SendRequest, read: (answer: PeerAnswer) => Promise<T>): Promise<T>;
  /**
   * A GET whose answer the caller reads for as long as it takes (a stream read with
   * backpressure), so with no deadline but the caller's `signal`. Replicas, the retry of a refused
   * connection, the credential and the trace context are as for every call; a call that gets no
   * answer is the peer's failure (logged once, a 503). The answer, whatever its status, is the
   * caller's, who reads its body to the end or destroys it.
   */
  stream(peer: Peer, request: StreamRequest): Promise<PeerStream>;
}

export interface StreamRequest extends Omit<SendOptions, 'timeoutMs'> {
  path: string;
  accept?: string;
  /** Ends the call, its answer's body included. */
  signal?: AbortSignal;
}

export interface PeerStream {
  status: number;
  headers: IncomingHttpHeaders;
  body: Dispatcher.ResponseData['body'];
}

export interface BytesCallOptions extends Omit<CallOptions<never>, 'parse'> {
  maxBytes: number;
}

export interface BytesAnswer {
  bytes: Uint8Array;
  /** The peer's Content-Type, '' when it sent none. */
  contentType: string;
}

/**
 * Keep-alive connections to every peer, reused across the calls of one client (one per service, so
 * parts sharing a process keep their connections apart). Idle connections do not hold the process
 * open, so the agent is never closed.
 */
function peerAgent(): Agent {
  return new Agent({ keepAliveTimeout: 30_000, connections: 64 });
}

/** What a call got, short of a failure. */
type Outcome<T> = { data: T | null } | { refused: Error };

/** Created once per process (in its app) and handed to whatever calls a peer. */
export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const { config, logger } = options;
  const token = serviceTokenSource(config.internalTokenSecret, options.service);
  const dispatcher = options.dispatcher ?? peerAgent();
  const defaultTimeoutMs = options.timeoutMs ?? SERVICE_CALL_TIMEOUT_MS;
  const replicas = new PeerReplicas(config);

  /** Who the call is made as: the gateway takes the internal API key, a service an identity token. */
  async function credential(peer: Peer, call: SendOptions): Promise<Record<string, string>> {
    if (peer === 'gateway') {
      if (!config.internalApiKey) throw new Error('no internal API key to call the gateway with');
      return { [INTERNAL_API_KEY_HEADER]: config.internalApiKey };
    }
    return { [IDENTITY_HEADER]: call.identityToken ?? (await token()) };
  }

  /** Sends the request to one replica; the answer's body is the caller's to read. */
  async function open(
    peer: Peer,
    origin: string,
    call: Omit<SendRequest, 'timeoutMs'>,
    signal: AbortSignal | undefined,
  ): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = {
      ...(await credential(peer, call)),
      accept: call.accept ?? 'application/json',
    };
    if (call.requestId) headers['x-request-id'] = call.requestId;
    addTraceContext(headers);
    let payload: string | FormData | undefined;
    if (call.body instanceof FormData) payload = call.body;
    else if (call.body !== undefined) {
      payload = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    return request(`${origin}${call.path}`, { method: call.method, headers, body: payload, dispatcher, signal });
  }

  async function attempt<T>(
    peer: Peer,
    origin: string,
    call: SendRequest,
    read: (answer: PeerAnswer) => Promise<T>,
    signal: AbortSignal,
  ): Promise<T> {
    const res = await open(peer, origin, call, signal);
    const status = res.statusCode;
    if (status < 200 || (status >= 300 && status < 400) || status >= 500) {
      await res.body.dump();
      throw new Error(`answered ${status}`);
    }
    try {
      return await read(answerOf(res));
    } finally {
      // Whatever `read` left unread, so that the connection serves the next call.
      if (!res.body.destroyed) await res.body.dump().catch(() => undefined);
    }
  }

  /** What a call that got no usable answer throws, logged once with its cause. */
  const failure =
    (peer: Peer, call: { method: string; path: string; requestId?: string }) => (error: unknown, origin: string) => {
      logger.error(
        {
          peer,
          replica: origin,
          method: call.method,
          path: call.path,
          requestId: call.requestId,
          cause: describe(error),
        },
        `call to the ${peer} service failed`,
      );
      return new AppError('SERVICE_UNAVAILABLE', `The ${peer} service is unavailable`);
    };

  async function send<T>(peer: Peer, call: SendRequest, read: (answer: PeerAnswer) => Promise<T>): Promise<T> {
    // One deadline for the call, a retry on another replica included.
    const signal = AbortSignal.timeout(call.timeoutMs ?? defaultTimeoutMs);
    return replicas.call(peer, call.method, (origin) => attempt(peer, origin, call, read, signal), failure(peer, call));
  }

  async function stream(peer: Peer, call: StreamRequest): Promise<PeerStream> {
    const get = { ...call, method: 'GET' as const };
    const res = await replicas.call(peer, 'GET', (origin) => open(peer, origin, get, call.signal), failure(peer, get));
    return { status: res.statusCode, headers: res.headers, body: res.body };
  }

  /** A refusal the caller gave a meaning, or the peer's failure. */
  async function refusedOrFailed(answer: PeerAnswer, call: CallOptions<unknown>): Promise<{ refused: Error }> {
    const refused = call.refusal ? call.refusal(answer.status, await errorOf(answer)) : undefined;
    if (refused) return { refused };
    throw new Error(`answered ${answer.status}`);
  }

  async function envelope<T>(
    method: 'GET' | 'POST' | 'PUT',
    peer: Peer,
    path: string,
    body: unknown,
    call: CallOptions<T> = {},
  ): Promise<T | null> {
    const outcome = await send<Outcome<T>>(peer, { ...call, method, path, body }, async (answer) => {
      if (answer.status === 404) return { data: null };
      if (answer.status >= 400) return refusedOrFailed(answer, call);
      const json = (await answer.json()) as { data?: unknown } | null;
      if (json?.data === undefined) throw new Error(`answered ${answer.status} without data`);
      return { data: call.parse ? call.parse(json.data) : (json.data as T) };
    });
    if ('refused' in outcome) throw outcome.refused;
    return outcome.data;
  }

  async function getBytes(peer: Peer, path: string, call: BytesCallOptions): Promise<BytesAnswer | null> {
    const outcome = await send<Outcome<BytesAnswer>>(
      peer,
      { ...call, method: 'GET', path, accept: '*/*' },
      async (answer) => {
        if (answer.status === 404) return { data: null };
        if (answer.status >= 400) return refusedOrFailed(answer, call);
        const type = answer.headers['content-type'];
        return {
          data: { bytes: await answer.bytes(call.maxBytes), contentType: typeof type === 'string' ? type : '' },
        };
      },
    );
    if ('refused' in outcome) throw outcome.refused;
    return outcome.data;
  }

  return {
    get: (peer, path, call) => envelope('GET', peer, path, undefined, call),
    post: (peer, path, body, call) => envelope('POST', peer, path, body, call),
    put: (peer, path, body, call) => envelope('PUT', peer, path, body, call),
    getBytes,
    send,
    stream,
  };
}

function answerOf(res: Dispatcher.ResponseData): PeerAnswer {
  return {
    status: res.statusCode,
    headers: res.headers,
    async json() {
      const text = await res.body.text();
      return text === '' ? null : JSON.parse(text);
    },
    async bytes(maxBytes) {
      const tooLong = () => {
        // Destroying the body closes its connection rather than reading the rest to reuse it; the
        // abort it then emits is this call's failure, already thrown, not the process's.
        res.body.on('error', () => undefined);
        res.body.destroy();
        return new Error(`answered more than ${maxBytes} bytes`);
      };
      if (Number(res.headers['content-length']) > maxBytes) throw tooLong();
      const chunks: Buffer[] = [];
      let length = 0;
      for await (const chunk of res.body) {
        length += (chunk as Buffer).byteLength;
        if (length > maxBytes) throw tooLong();
        chunks.push(chunk as Buffer);
      }
      return Buffer.concat(chunks, length);
    },
  };
}

/** The envelope error of a refusal, when its body is one; never a failure of its own. */
async function errorOf(answer: PeerAnswer): Promise<PeerError | undefined> {
  try {
    const error = ((await answer.json()) as { error?: unknown } | null)?.error;
    return error && typeof error === 'object' ? (error as PeerError) : undefined;
  } catch {
    return undefined;
  }
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
