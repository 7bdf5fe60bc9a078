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
 * The text cut to at most `maxBytes`, on a character boundary (a character is never split, a
 * surrogate pair neither), and whether it was cut. The size counted is that of the text in the
 * event's JSON, as UTF-8: the same as its UTF-8 for ordinary text, more for what JSON escapes
 * (a text of control characters, 6 bytes each as `\u0001`, must not make an event 6 times the cap).
 */
export function capText(text: string, maxBytes = EVENT_TEXT_MAX_BYTES): { text: string; truncated: boolean } {
  // Every UTF-16 unit costs at most 6 bytes in JSON: a short text needs no count.
  if (text.length * 6 <= maxBytes) return { text, truncated: false };
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const pair = unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1));
    bytes += pair ? 4 : jsonCost(unit);
    if (bytes > maxBytes) return { text: text.slice(0, i), truncated: true };
    if (pair) i++;
  }
  return { text, truncated: false };
}

const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/** Bytes one UTF-16 unit (not part of a pair) takes in JSON.stringify's output, as UTF-8. */
function jsonCost(unit: number): number {
  if (unit === 0x22 || unit === 0x5c) return 2; // \" and \\
  if (unit < 0x20) return unit === 0x08 || unit === 0x09 || unit === 0x0a || unit === 0x0c || unit === 0x0d ? 2 : 6;
  if (unit < 0x80) return 1;
  if (unit < 0x800) return 2;
  if (unit >= 0xd800 && unit <= 0xdfff) return 6; // a lone surrogate is written \udxxx
  return 3;
}

/** The list in consecutive pieces of at most `size` (one piece, maybe empty, for a short list). */
export function splitIds<T>(items: readonly T[], size = EVENT_MAX_IDS): T[][] {
  if (items.length <= size) return [items.slice()];
  const pieces: T[][] = [];
  for (let i = 0; i < items.length; i += size) pieces.push(items.slice(i, i + size));
  return pieces;
}
