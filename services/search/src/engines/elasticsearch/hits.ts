import type { estypes } from '@elastic/elasticsearch';
import type { SearchHit } from '../engine.js';

/** The part of an indexed document a search reads back (`_source` filtering). */
export interface HitSource {
  id?: string;
  title?: string;
  icon?: string | null;
  parentId?: string | null;
}

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => escapes[c]);
}

/**
 * A search answer as SearchResultResponse items, in Elasticsearch's order (best first).
 * `matchField` is `title` when the title was highlighted (it matched by words or by parts of
 * words), else `content`; the snippet is that field's highlight, already HTML-escaped by the
 * `html` encoder except for the `<mark>` tags. A hit with no highlight at all (its text is empty
 * and only the exact-title clause could not mark anything) gets its escaped title.
 */
export function toSearchHits(response: estypes.SearchResponse<HitSource>): SearchHit[] {
  return response.hits.hits.map((hit) => {
    const source = hit._source ?? {};
    const title = source.title ?? '';
    const titleMarks = hit.highlight?.title?.[0];
    const contentSnippet = hit.highlight?.plainText?.[0];
    const matchField = titleMarks !== undefined ? 'title' : 'content';
    return {
      id: source.id ?? String(hit._id),
      title,
      icon: source.icon ?? null,
      parentId: source.parentId ?? null,
      snippet: titleMarks ?? contentSnippet ?? escapeHtml(title),
      matchField,
    };
  });
}
