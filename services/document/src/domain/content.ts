import { AppError, findNulField, invalidField, nulFieldError } from '@wiki/http';

/**
 * Document content (ARCHITECTURE 5.7): a JSON array of blocks, or a string holding one. Each block
 * has a `type` and optional `id`, `props`, `content`, `children`. It is stored and returned as a
 * string; at most 2 MiB.
 */
export const MAX_CONTENT_BYTES = 2 * 1024 * 1024;
/** JSON nesting deeper than this is refused: it keeps every walk over the content shallow. */
export const MAX_CONTENT_DEPTH = 200;

export interface ParsedContent {
  blocks: unknown[];
  /** The canonical JSON text that is stored and returned. */
  json: string;
}

/** Content given as null (or not at all, on create): an empty document. */
export const emptyContent = (): ParsedContent => ({ blocks: [], json: '[]' });

const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', `content must be at most ${MAX_CONTENT_BYTES} bytes (2 MiB)`);

/** The deepest nesting of arrays and objects in a parsed JSON value, walked without recursion. */
export function jsonDepth(value: unknown, stopAt = Number.POSITIVE_INFINITY): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const top = stack.pop();
    if (!top) break;
    const [node, depth] = top;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > max) max = depth;
    if (max > stopAt) return max;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return max;
}

function checkBlocks(blocks: unknown[], path: string): void {
  blocks.forEach((block, i) => {
    const at = `${path}[${i}]`;
    if (typeof block !== 'object' || block === null || Array.isArray(block))
      throw invalidField(at, 'must be a block object');
    const b = block as Record<string, unknown>;
    if (typeof b.type !== 'string' || b.type === '') throw invalidField(`${at}.type`, 'must be a non-empty string');
    if (b.id !== undefined && b.id !== null && typeof b.id !== 'string')
      throw invalidField(`${at}.id`, 'must be a string');
    if (b.props !== undefined && (typeof b.props !== 'object' || b.props === null || Array.isArray(b.props))) {
      throw invalidField(`${at}.props`, 'must be an object');
    }
    if (
      b.content !== undefined &&
      b.content !== null &&
      typeof b.content !== 'string' &&
      typeof b.content !== 'object'
    ) {
      throw invalidField(`${at}.content`, 'must be inline content or table content');
    }
    if (b.children !== undefined) {
      if (!Array.isArray(b.children)) throw invalidField(`${at}.children`, 'must be an array of blocks');
      checkBlocks(b.children, `${at}.children`);
    }
  });
}

/** Validates content given as an array or a string holding one; throws a 400 or 413 AppError. */
export function parseContent(input: unknown): ParsedContent {
  let value = input;
  if (typeof input === 'string') {
    // A string can only grow when re-serialised by escaping; refuse the obviously too large first.
    if (Buffer.byteLength(input, 'utf8') > MAX_CONTENT_BYTES) throw tooLarge();
    if (input.trim() === '') return emptyContent();
    try {
      value = JSON.parse(input);
    } catch {
      throw invalidField('content', 'must be a JSON array of blocks');
    }
    // The edge finds NULs in the request's strings; here one was `\u0000` text inside a string
    // until now, and Postgres would refuse it in jsonb.
    const nulField = findNulField(value, 'content');
    if (nulField) throw nulFieldError(nulField);
  }
  if (!Array.isArray(value)) throw invalidField('content', 'must be a JSON array of blocks');
  if (jsonDepth(value, MAX_CONTENT_DEPTH) > MAX_CONTENT_DEPTH) {
    throw invalidField('content', `must not be nested more than ${MAX_CONTENT_DEPTH} levels deep`);
  }
  checkBlocks(value, 'content');
  const json = JSON.stringify(value);
  if (Buffer.byteLength(json, 'utf8') > MAX_CONTENT_BYTES) throw tooLarge();
  return { blocks: value, json };
}
