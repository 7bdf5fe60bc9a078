import type { CommonQueryMethods } from '@wiki/db';
import { documentPage } from '../db/document-stream.js';
import type { WholeDocument } from '../db/whole-document.js';

/** How the stream pages; the defaults keep a page near a few MiB whatever the documents. */
export interface StreamPaging {
  rows: number;
  textBytes: number;
}

export const STREAM_PAGING: StreamPaging = { rows: 500, textBytes: 4 * 1024 * 1024 };

export interface StreamFilter {
  workspaceId?: string;
  after?: string;
  /** Documents at most in this answer; all when absent. */
  limit?: number;
}

/**
 * Every document of the filter in id order, one page at a time: the next page is read only when
 * the consumer of the generator asks for more (a slow reader holds the stream, not the table).
 * Each page is its own query, so no transaction or cursor stays open across a long stream; a
 * document created behind the cursor while it runs is not sent (the events carry it).
 */
export async function* streamDocuments(
  db: CommonQueryMethods,
  filter: StreamFilter,
  paging: StreamPaging = STREAM_PAGING,
): AsyncGenerator<WholeDocument> {
  let after = filter.after;
  let left = filter.limit ?? Number.POSITIVE_INFINITY;
  while (left > 0) {
    const rows = Math.min(paging.rows, left);
    const page = await documentPage(db, { workspaceId: filter.workspaceId, after, rows, textBytes: paging.textBytes });
    const last = page.at(-1);
    if (!last) return;
    for (const row of page) yield row;
    left -= page.length;
    after = last.id;
  }
}
