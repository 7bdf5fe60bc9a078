import type { estypes } from '@elastic/elasticsearch';
import type { SearchHit, SearchPage } from '../engine.js';
import { BEST_PASSAGE, DOCUMENT_MATCH } from './query.js';

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

/** The part of a passage its inner hit reads back. */
interface PassageSource {
  id?: string;
  passageKind?: 'comment' | 'attachment';
  threadId?: string | null;
}

/** Where a hit matched, from its named queries and its best passage. */
function matchOf(hit: estypes.SearchHit<HitSource>): Pick<
  SearchHit,
  'matchField' | 'commentThreadId' | 'attachmentId'
> & {
  snippet?: string;
} {
  const matched = Array.isArray(hit.matched_queries) ? hit.matched_queries : Object.keys(hit.matched_queries ?? {});
  const passage = hit.inner_hits?.[BEST_PASSAGE]?.hits.hits[0];
  // The document's own title or text ranks above a passage (query.ts TIERS), so it is the hit's field.
  if (matched.includes(DOCUMENT_MATCH) || !passage) {
    return hit.highlight?.title?.[0] !== undefined ? { matchField: 'title' } : { matchField: 'content' };
  }
  const source = (passage._source ?? {}) as PassageSource;
  const snippet = passage.highlight?.text?.[0];
  return source.passageKind === 'comment'
    ? { matchField: 'comment', commentThreadId: source.threadId ?? '', snippet }
    : { matchField: 'attachment', attachmentId: source.id ?? String(passage._id), snippet };
}

/**
 * A search answer as SearchResultResponse items, in Elasticsearch's order (best first), and the
 * number of documents that match. `matchField` is `title` when the title was highlighted (it
 * matched by words or by parts of words), else `content`, or the kind of the passage a document
 * was found by alone; the snippet is that field's highlight, already HTML-escaped by the `html`
 * encoder except for the `<mark>` tags. A hit with no highlight at all (its text is empty and only
 * the exact-title clause could not mark anything) gets its escaped title.
 */
export function toSearchPage(response: estypes.SearchResponse<HitSource>): SearchPage {
  const hits = response.hits.hits.map((hit): SearchHit => {
    const source = hit._source ?? {};
    const title = source.title ?? '';
    const { snippet: passageSnippet, ...match } = matchOf(hit);
    const titleMarks = match.matchField === 'title' ? hit.highlight?.title?.[0] : undefined;
    const contentSnippet = match.matchField === 'content' ? hit.highlight?.plainText?.[0] : undefined;
    return {
      id: source.id ?? String(hit._id),
      title,
      icon: source.icon ?? null,
      parentId: source.parentId ?? null,
      snippet: titleMarks ?? contentSnippet ?? passageSnippet ?? escapeHtml(title),
      ...match,
    };
  });
  const { total } = response.hits;
  const counted = typeof total === 'number' ? total : (total?.value ?? hits.length);
  return { hits, total: counted };
}
