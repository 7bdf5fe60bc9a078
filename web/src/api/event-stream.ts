// Server-Sent Events with the bearer token: EventSource cannot send headers, so the stream is read
// with fetch (@microsoft/fetch-event-source). Each call is one connection; reconnecting (and its
// back-off) is the caller's, so that every attempt carries a fresh token and its Last-Event-ID.
import { type EventSourceMessage, fetchEventSource } from '@microsoft/fetch-event-source';
import { errorFromBody } from './client';

export type StreamMessage = EventSourceMessage;

export interface StreamOptions {
  token: string | null;
  /** The id of the last event seen (sent as Last-Event-ID: the server resumes after it). */
  lastEventId?: string;
  signal: AbortSignal;
  onOpen?: () => void;
  onMessage: (message: StreamMessage) => void;
}

/** Thrown when the server refused the stream (the HTTP error of its answer). */
export class StreamRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'StreamRefused';
  }
}

/**
 * Reads one stream until the server ends it (resolves), it is aborted (resolves) or it fails
 * (rejects: a refusal is a StreamRefused, a dropped connection the network error).
 */
export function readEventStream(url: string, options: StreamOptions): Promise<void> {
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
  return fetchEventSource(url, {
    headers,
    signal: options.signal,
    // Hidden tabs are the caller's call (it closes the stream after a while, not at once).
    openWhenHidden: true,
    onopen: async (response) => {
      if (!response.ok) {
        const body = await response.text().catch(() => '');
        const error = errorFromBody(response.status, response.statusText, body);
        throw new StreamRefused(response.status, error.message);
      }
      options.onOpen?.();
    },
    onmessage: options.onMessage,
    onerror: (error) => {
      // No retry inside: the caller reconnects with a fresh token and its own back-off.
      throw error;
    },
  });
}
