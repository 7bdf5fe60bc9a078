// The one way the app talks to the API: JSON in and out, the bearer token of the current session,
// the success envelope unwrapped and the error envelope (ARCHITECTURE 5.1) turned into ApiError.

import { readEventStream, type StreamOptions } from './event-stream';
import { sendForm, type UploadOptions } from './send-form';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    /** The domain reason of a refusal (e.g. INVITATION_EXPIRED for a 410), when the API names one. */
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** For the public routes: send no token and never treat a 401 as "signed out". */
  anonymous?: boolean;
}

export type { UploadOptions } from './send-form';

export interface TokenSource {
  /** The current access token, or null when nobody is signed in. */
  accessToken(): Promise<string | null>;
  /** Called on a 401: the session ended (expired, revoked); the app sends the person to sign in. */
  onUnauthorized(): void;
}

const API_BASE = '/api/v1';

function pathWithQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** The error envelope of a failed answer's body, or its status line when it is not one. */
export function errorFromBody(status: number, statusText: string, text: string): ApiError {
  let code = `HTTP_${status}`;
  let message = statusText || 'The request failed';
  let details: unknown;
  let reason: string | undefined;
  try {
    const body = JSON.parse(text);
    if (body?.error) {
      code = body.error.code ?? code;
      message = body.error.message ?? message;
      details = body.error.details;
      reason = body.error.reason;
    }
  } catch {
    // Not the JSON envelope (a proxy's page): keep the status line.
  }
  return new ApiError(status, code, message, details, reason);
}

async function errorFrom(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  return errorFromBody(response.status, response.statusText, text);
}

export class ApiClient {
  constructor(private readonly tokens: TokenSource) {}

  /** The raw response (for downloads and headers such as ETag); throws ApiError unless 2xx. */
  async fetch(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (!options.anonymous) {
      const token = await this.tokens.accessToken();
      if (token) headers.authorization = `Bearer ${token}`;
    }
    let body: BodyInit | undefined;
    if (options.body instanceof FormData) body = options.body;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(`${API_BASE}${pathWithQuery(path, options.query)}`, {
      method,
      headers,
      body,
      signal: options.signal,
    });
    if (response.ok) return response;
    if (response.status === 401 && !options.anonymous) this.tokens.onUnauthorized();
    throw await errorFrom(response);
  }

  /** The `data` of the success envelope (undefined for 204 and ApiResponse<Void>). */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.fetch(method, path, options);
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    if (!text) return undefined as T;
    return (JSON.parse(text) as { data: T }).data;
  }

  /**
   * A multipart form POSTed with upload progress (fetch cannot report it, XMLHttpRequest can);
   * answers the `data` of the success envelope, throws ApiError like the other calls.
   */
  async upload<T>(path: string, form: FormData, options: UploadOptions = {}): Promise<T> {
    const token = await this.tokens.accessToken();
    const answer = await sendForm(`${API_BASE}${path}`, form, token, options);
    if (answer.status >= 200 && answer.status < 300) return (JSON.parse(answer.text) as { data: T }).data;
    if (answer.status === 401) this.tokens.onUnauthorized();
    throw errorFromBody(answer.status, answer.statusText, answer.text);
  }

  /**
   * One Server-Sent Events connection with the session's token (see event-stream.ts); a 401
   * ends the session as any refused request does.
   */
  async stream(path: string, options: Omit<StreamOptions, 'token'>): Promise<void> {
    const token = await this.tokens.accessToken();
    try {
      await readEventStream(`${API_BASE}${path}`, { ...options, token });
    } catch (error) {
      if ((error as { status?: number }).status === 401) this.tokens.onUnauthorized();
      throw error;
    }
  }

  get<T>(path: string, options?: RequestOptions): Promise<T> {
    return this.request<T>('GET', path, options);
  }
  post<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T> {
    return this.request<T>('POST', path, { ...options, body });
  }
  put<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T> {
    return this.request<T>('PUT', path, { ...options, body });
  }
  delete<T = void>(path: string, options?: RequestOptions): Promise<T> {
    return this.request<T>('DELETE', path, options);
  }
}
