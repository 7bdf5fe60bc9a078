import { StringDecoder } from 'node:string_decoder';
import { parseWholeDocument, type WholeDocument } from './document-text.js';
import type { PeerStream, ServiceClient } from './service-client.js';

/** A document as the document service's `GET /internal/documents/stream` sends it. */
export type StreamedDocument = WholeDocument;

export interface DocumentStreamOptions {
  /** One workspace's documents; every workspace's when absent. */
  workspaceId?: string;
  /** Resume after this id (exclusive). */
  after?: string;
  /** Documents at most; all when absent. */
  limit?: number;
  /** Ends the stream early (the request is aborted). */
  signal?: AbortSignal;
  requestId?: string;
}

/** The stream could not be read to its end: refused, unreachable, cut or malformed. */
export class DocumentStreamError extends Error {
  override name = 'DocumentStreamError';
}

/**
 * The documents of the document service in id order, as they arrive: the answer is read line by
 * line, so a caller that awaits its work between documents slows the service's reading down
 * (backpressure) instead of piling the rest up in memory. Throws a DocumentStreamError when the
 * answer is not a 200 or ends before the service's closing line (a cut stream never passes for a
 * complete one); the documents yielded before that were whole. The call is the client's (replicas,
 * a refused connection sent to another one, the service token, the trace context).
 */
export async function* streamDocumentsFrom(
  client: ServiceClient,
  options: DocumentStreamOptions = {},
): AsyncGenerator<StreamedDocument> {
  const query = new URLSearchParams();
  if (options.workspaceId) query.set('workspaceId', options.workspaceId);
  if (options.after) query.set('after', options.after);
  if (options.limit !== undefined) query.set('limit', String(options.limit));
  const path = `/internal/documents/stream${query.size ? `?${query}` : ''}`;
  let res: PeerStream;
  try {
    res = await client.stream('document', {
      path,
      accept: 'application/x-ndjson',
      requestId: options.requestId,
      signal: options.signal,
    });
  } catch (error) {
    throw new DocumentStreamError(`the document service could not be reached: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (res.status !== 200) {
    const body = await res.body.text().catch(() => '');
    throw new DocumentStreamError(`the document stream answered ${res.status}: ${body.slice(0, 200)}`);
  }

  let count = 0;
  let done = false;
  try {
    for await (const line of ndjsonLines(res.body)) {
      const value = JSON.parse(line) as unknown;
      if (isClosingLine(value)) {
        if (value.count !== count)
          throw new DocumentStreamError(`the stream says ${value.count} documents, sent ${count}`);
        done = true;
        continue;
      }
      if (done) throw new DocumentStreamError('a document came after the closing line');
      count += 1;
      yield parseDocument(value);
    }
  } catch (error) {
    if (error instanceof DocumentStreamError) throw error;
    throw new DocumentStreamError(`the document stream broke after ${count} documents: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    // A consumer that stops early (break, an error of its own) must not leave the answer open.
    if (!res.body.destroyed) res.body.destroy();
  }
  if (!done) throw new DocumentStreamError(`the document stream was cut after ${count} documents`);
}

/**
 * Complete lines of UTF-8 text, without their newline. Chunks may split a line, or a character,
 * anywhere: the decoder keeps the first bytes of a split character until the rest arrives.
 */
export async function* ndjsonLines(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  for await (const chunk of body) {
    // Only the new chunk is searched: a 2 MiB line in 64 KiB chunks is not scanned again and again.
    let text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let newline = text.indexOf('\n');
    while (newline !== -1) {
      const line = rest + text.slice(0, newline);
      rest = '';
      if (line) yield line;
      text = text.slice(newline + 1);
      newline = text.indexOf('\n');
    }
    rest += text;
  }
  rest += decoder.end();
  if (rest) yield rest;
}

function isClosingLine(value: unknown): value is { done: true; count: number } {
  return (value as { done?: unknown } | null)?.done === true;
}

function parseDocument(value: unknown): StreamedDocument {
  try {
    return parseWholeDocument(value, 'a streamed document');
  } catch (error) {
    throw new DocumentStreamError((error as Error).message);
  }
}
