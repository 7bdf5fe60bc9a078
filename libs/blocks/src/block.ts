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
 * Whether two JSON values hold the same, whatever the order of their keys (a writer that rebuilt
 * the JSON changed nothing); keys whose value is undefined do not count. Top-level keys in `skip`
 * are left out. No strings are built: a 2,000-block comparison stays in milliseconds.
 */
export function sameJson(a: unknown, b: unknown, skip?: ReadonlySet<string>): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i += 1) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (!isObject(a) || !isObject(b)) return false;
  let count = 0;
  for (const key in a) {
    if (a[key] === undefined || skip?.has(key)) continue;
    count += 1;
    if (!sameJson(a[key], b[key])) return false;
  }
  for (const key in b) if (b[key] !== undefined && !skip?.has(key)) count -= 1;
  return count === 0;
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
