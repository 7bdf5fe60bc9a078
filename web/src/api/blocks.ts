import type { PartialBlock } from '@blocknote/core';

/** The blocks of a document's `content` (a JSON string of an array); anything else is no blocks. */
export function parseBlocks(content: string | null | undefined): PartialBlock[] {
  if (!content) return [];
  try {
    const value: unknown = JSON.parse(content);
    return Array.isArray(value) ? (value as PartialBlock[]) : [];
  } catch {
    return [];
  }
}
