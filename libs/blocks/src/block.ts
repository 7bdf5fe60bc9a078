import { createHash } from 'node:crypto';

/** A BlockNote block as the document service stores it (ARCHITECTURE 5.7): loosely typed JSON. */
export interface Block {
  id?: string;
  type?: string;
  props?: Record<string, unknown>;
  content?: unknown;
  children?: Block[];
  [key: string]: unknown;
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * JSON with every object's keys sorted: two blocks that differ only in key order (a client that
 * rebuilt the JSON) compare equal.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/**
 * Makes the keys blocks are matched by, one call per block in order: its id; the n-th repeat of an id (n ≥ 2) is `id` NUL `n`, so
 * duplicates pair up in order; a block without an id is matched by its place among the id-less
 * blocks of its side (NUL `n`). Ids never hold NUL (the document service refuses it), so these
 * never collide with a real id.
 */
export function keyMaker(): (id: string | undefined) => string {
  const seen = new Map<string, number>();
  let idless = 0;
  return (id) => {
    if (typeof id !== 'string' || id === '') return `\u0000${idless++}`;
    const count = (seen.get(id) ?? 0) + 1;
    seen.set(id, count);
    return count === 1 ? id : `${id}\u0000${count}`;
  };
}

/** The keys of a list of ids, in order (keyMaker over them). */
export function blockKeys(ids: ReadonlyArray<string | undefined>): string[] {
  return ids.map(keyMaker());
}

/** The id a key stands for (what diffs and plans report): the block's id, or `#n` for the n-th id-less block. */
export function idOfKey(key: string): string {
  const nul = key.indexOf('\u0000');
  if (nul === 0) return `#${key.slice(1)}`;
  return nul === -1 ? key : key.slice(0, nul);
}

export const blockId = (block: Block): string | undefined =>
  typeof block.id === 'string' && block.id !== '' ? block.id : undefined;
