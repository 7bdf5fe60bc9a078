/**
 * Bounded events (ARCHITECTURE 4): no envelope grows with user input past a fixed cap, so no
 * event can be one that NATS refuses (its `max_payload`, 1 MiB by default) and that would hold up
 * every later event of its service. Producers keep payloads small by design (text cut with a
 * flag, id lists split, see below); the outbox refuses whatever is still over the cap when it is
 * written, so a bug fails its own transaction instead of stalling the bus later.
 */

const KIB = 1024;

/** The default cap of one serialised envelope (EVENT_MAX_BYTES). */
export const DEFAULT_EVENT_MAX_BYTES = 256 * KIB;
/** The smallest cap that still holds every bounded event (a full text and a full id list). */
export const MIN_EVENT_MAX_BYTES = 128 * KIB;

/** Text in an event (a document's plain text for indexing) is cut at this many UTF-8 bytes. */
export const EVENT_TEXT_MAX_BYTES = 64 * KIB;
/** An id list in one event holds at most this many ids (~38 KiB of JSON); longer lists are split. */
export const EVENT_MAX_IDS = 1000;

/** Bytes kept free under the server's max_payload for the message's headers (Nats-Msg-Id and the like). */
const HEADER_ROOM = 4 * KIB;
/**
 * The relay publishes the envelope as Postgres prints the jsonb column, which puts a space after
 * every `:` and `,`: at most 1.5 times the compact JSON the cap is measured on (a list of
 * one-character values is the worst case). The cap is lowered so that even that fits.
 */
const JSONB_TEXT_GROWTH = 1.5;

/** Thrown when an envelope is over the cap: the write (and the transaction around it) fails. */
export class EventTooLargeError extends Error {
  /** What an HTTP caller sees if a user's write ever hits it (mapped to 413 PAYLOAD_TOO_LARGE). */
  readonly statusCode = 413;
  constructor(
    readonly type: string,
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(
      `The change is too large to be announced: its ${type} event is ${bytes} bytes, over the limit of ${maxBytes}`,
    );
    this.name = 'EventTooLargeError';
  }
}

let maxEnvelopeBytes = DEFAULT_EVENT_MAX_BYTES;

/** The cap in force in this process. */
export function eventMaxBytes(): number {
  return maxEnvelopeBytes;
}

/**
 * Sets the cap of this process's outbox writes: the configured one (EVENT_MAX_BYTES), lowered
 * when the NATS server's max_payload (read at connect) leaves less room. Returns the cap in force.
 * Process-wide, like the configuration it comes from: every service of a process has the same.
 */
export function configureEventMaxBytes(configured: number, serverMaxPayload?: number): number {
  maxEnvelopeBytes = capUnderPayload(configured, serverMaxPayload);
  return maxEnvelopeBytes;
}

/** The configured cap, or less when the server's max_payload needs it (headers and jsonb's spaces). */
export function capUnderPayload(configured: number, serverMaxPayload?: number): number {
  if (!serverMaxPayload || serverMaxPayload <= 0) return configured;
  const room = Math.floor((serverMaxPayload - HEADER_ROOM) / JSONB_TEXT_GROWTH);
  return Math.max(1, Math.min(configured, room));
}

/**
 * Serialises the envelope and checks it against the cap; returns the JSON so that the caller
 * writes exactly what was measured. Throws an EventTooLargeError when it is over.
 */
export function serializeWithinCap(envelope: { type: string }, maxBytes = maxEnvelopeBytes): string {
  const json = JSON.stringify(envelope);
  // Every UTF-16 unit is at most 3 bytes of UTF-8: short envelopes skip the exact count.
  if (json.length * 3 <= maxBytes) return json;
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > maxBytes) throw new EventTooLargeError(envelope.type, bytes, maxBytes);
  return json;
}

/**
 * The text cut to at most `maxBytes` of UTF-8, on a character boundary (a character is never
 * split, a surrogate pair neither: it is one 4-byte sequence in UTF-8), and whether it was cut.
 */
export function capText(text: string, maxBytes = EVENT_TEXT_MAX_BYTES): { text: string; truncated: boolean } {
  if (text.length * 3 <= maxBytes) return { text, truncated: false };
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, truncated: false };
  let end = maxBytes;
  // Back off from a continuation byte (10xxxxxx) to the start of its character.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return { text: bytes.toString('utf8', 0, end), truncated: true };
}

/** The list in consecutive pieces of at most `size` (one piece, maybe empty, for a short list). */
export function splitIds<T>(items: readonly T[], size = EVENT_MAX_IDS): T[][] {
  if (items.length <= size) return [items.slice()];
  const pieces: T[][] = [];
  for (let i = 0; i < items.length; i += size) pieces.push(items.slice(i, i + size));
  return pieces;
}
