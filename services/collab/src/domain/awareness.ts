import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';

/** Hocuspocus's message type for awareness (its MessageType.Awareness). */
const AWARENESS = 1;
const MAX_COLOR_LENGTH = 32;

/** Who a connection is, as shown to the others in the room. */
export interface ShownUser {
  id: string;
  name: string;
}

/**
 * Rewrites an incoming Hocuspocus message so that every awareness state it carries names the
 * authenticated user of that document (`userFor(documentName)`; undefined: not authenticated yet,
 * so the state names nobody). A client may pick its cursor colour, nothing else about `user`.
 * Other messages come back untouched (the same object).
 */
export function forceAwarenessUser(
  data: Uint8Array,
  userFor: (documentName: string) => ShownUser | undefined,
): Uint8Array {
  const decoder = decoding.createDecoder(data);
  const documentName = decoding.readVarString(decoder);
  if (decoding.readVarUint(decoder) !== AWARENESS) return data;
  const update = decoding.createDecoder(decoding.readVarUint8Array(decoder));
  const user = userFor(documentName);

  const inner = encoding.createEncoder();
  const count = decoding.readVarUint(update);
  encoding.writeVarUint(inner, count);
  for (let i = 0; i < count; i += 1) {
    encoding.writeVarUint(inner, decoding.readVarUint(update)); // client id
    encoding.writeVarUint(inner, decoding.readVarUint(update)); // clock
    const raw = decoding.readVarString(update);
    encoding.writeVarString(inner, rewriteState(raw, user));
  }

  const outer = encoding.createEncoder();
  encoding.writeVarString(outer, documentName);
  encoding.writeVarUint(outer, AWARENESS);
  encoding.writeVarUint8Array(outer, encoding.toUint8Array(inner));
  return encoding.toUint8Array(outer);
}

function rewriteState(raw: string, user: ShownUser | undefined): string {
  let state: unknown;
  try {
    state = JSON.parse(raw);
  } catch {
    return 'null';
  }
  // null is how a client leaves the room: kept as is.
  if (state === null) return raw;
  if (typeof state !== 'object' || Array.isArray(state)) return '{}';
  const { user: claimed, ...rest } = state as Record<string, unknown>;
  if (!user) return JSON.stringify(rest);
  const color = (claimed as { color?: unknown } | undefined)?.color;
  const shown: Record<string, string> = { id: user.id, name: user.name };
  if (typeof color === 'string' && color.length <= MAX_COLOR_LENGTH) shown.color = color;
  return JSON.stringify({ ...rest, user: shown });
}
