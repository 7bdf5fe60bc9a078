import type { BlockPrint } from '@wiki/blocks';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';

/** What a replica knows about its open room besides the Y.Doc, as another replica takes it over. */
export interface RoomView {
  /** The top-level blocks stored as far as the room knows: the next write's merge base. */
  base: BlockPrint[];
  /** The blocks JSON stored as far as the room knows. */
  lastJson: string;
  /** Hash of the state last stored or loaded. */
  savedHash: string;
  sawContent: boolean;
}

export interface RoomCopy {
  view: RoomView;
  /** Y.encodeStateAsUpdate of the room. */
  state: Uint8Array;
}

/** Whether a value is a list of block prints (as a Saved message or a copy carries them). */
export function isPrints(value: unknown): value is BlockPrint[] {
  const isPrint = (p: unknown) =>
    typeof p === 'object' &&
    p !== null &&
    typeof (p as BlockPrint).hash === 'string' &&
    ((p as BlockPrint).id === undefined || typeof (p as BlockPrint).id === 'string');
  return Array.isArray(value) && value.every(isPrint);
}

/** The payload of a Copy message: the view as JSON, then the state. */
export function encodeRoomCopy(copy: RoomCopy): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, JSON.stringify(copy.view));
  encoding.writeVarUint8Array(encoder, copy.state);
  return encoding.toUint8Array(encoder);
}

/** A Copy message's payload read back; undefined when it is not one (another version, damage). */
export function decodeRoomCopy(payload: Uint8Array): RoomCopy | undefined {
  try {
    const decoder = decoding.createDecoder(payload);
    const view = JSON.parse(decoding.readVarString(decoder)) as Partial<RoomView> | null;
    const state = decoding.readVarUint8Array(decoder);
    if (
      !view ||
      !isPrints(view.base) ||
      typeof view.lastJson !== 'string' ||
      typeof view.savedHash !== 'string' ||
      typeof view.sawContent !== 'boolean' ||
      decoding.hasContent(decoder)
    ) {
      return undefined;
    }
    const { base, lastJson, savedHash, sawContent } = view;
    return { view: { base, lastJson, savedHash, sawContent }, state };
  } catch {
    return undefined;
  }
}
