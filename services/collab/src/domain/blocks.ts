import { createHash } from 'node:crypto';
import { type Block, plainTextOf } from '@wiki/blocks';

export type { Block };

/** Parses stored content (a JSON array of blocks); anything else is an empty document. */
export function parseBlocks(json: string): Block[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? (value.filter((b) => b && typeof b === 'object') as Block[]) : [];
  } catch {
    return [];
  }
}

function seededUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Gives every block without an id one derived from `seed` and its position. Replicas that build
 * a room from the same content must produce the same Yjs items, byte for byte; BlockNote would
 * otherwise invent random ids.
 */
export function withSeededIds(blocks: Block[], seed: string, path = ''): Block[] {
  return blocks.map((block, index) => {
    const here = `${path}/${index}`;
    const children = Array.isArray(block.children) ? withSeededIds(block.children, seed, here) : block.children;
    return {
      ...block,
      id: typeof block.id === 'string' && block.id !== '' ? block.id : seededUuid(`${seed}${here}`),
      ...(children === undefined ? {} : { children }),
    };
  });
}

/**
 * The Yjs client id of the items a room is built from (content, revision): the same on every
 * replica, different for different content, so that two replicas building the same room make
 * identical updates instead of two copies of the document.
 */
export function seededClientId(documentId: string, revision: number, contentJson: string): number {
  return createHash('sha256').update(`${documentId}\n${revision}\n${contentJson}`).digest().readUInt32BE(0);
}

/**
 * Drops every U+0000 from the strings of `value` (blocks as yDocToBlocks made them, changed in
 * place). Postgres stores no NUL and the document service refuses one with a 400: a NUL an editor
 * typed would otherwise keep every later save of the room from being stored.
 */
export function dropNul<T>(value: T): T {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = dropNul(value[i]);
  } else if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const clean = dropNul(record[key]);
      if (key.includes('\u0000')) {
        delete record[key];
        record[key.replaceAll('\u0000', '')] = clean;
      } else record[key] = clean;
    }
  } else if (typeof value === 'string' && value.includes('\u0000')) {
    return value.replaceAll('\u0000', '') as T;
  }
  return value;
}

/** Empty: nothing but paragraphs without text (what a blank editor holds). Images, tables and the like count as content. */
export function isEmptyContent(blocks: Block[]): boolean {
  return blocks.every(
    (block) =>
      (block.type === undefined || block.type === 'paragraph') &&
      plainTextOf([block]) === '' &&
      (!Array.isArray(block.children) || isEmptyContent(block.children)),
  );
}

export type SaveVerdict = 'save' | 'skip-unchanged' | 'refuse-empty';

/**
 * Whether a room's state may be stored. Unchanged bytes are not written again. An empty document
 * replaces stored content only when this room saw content that an edit then removed; a room that
 * never held any (a load that went wrong, a replica that started blank) must not wipe the page
 * (the bug behind Docmost #2353 and Outline #4306). `storedIsEmpty` is asked only in that case.
 */
export async function saveVerdict(input: {
  unchanged: boolean;
  empty: boolean;
  sawContent: boolean;
  storedIsEmpty: () => Promise<boolean>;
}): Promise<SaveVerdict> {
  if (input.unchanged) return 'skip-unchanged';
  if (!input.empty || input.sawContent) return 'save';
  return (await input.storedIsEmpty()) ? 'save' : 'refuse-empty';
}
