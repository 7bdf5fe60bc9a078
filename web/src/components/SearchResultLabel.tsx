import { type SnippetPart, snippetParts } from '../api/snippet';
import type { SearchResult } from '../api/types';

/**
 * A result's title with its matches marked when the title matched, else the title and below it the
 * snippet of the content. Nothing of the snippet reaches the page as HTML (api/snippet.ts).
 */
export function SearchResultLabel({ result }: { result: SearchResult }) {
  const parts = snippetParts(result.snippet);
  const title = result.title || 'Untitled';
  const snippetIsTitle = parts.map((part) => part.text).join('') === result.title;
  return (
    <>
      <span className="search-title">
        {result.icon && <span aria-hidden="true">{result.icon} </span>}
        {snippetIsTitle ? marked(parts) : title}
      </span>
      {!snippetIsTitle && parts.length > 0 && <span className="search-snippet">{marked(parts)}</span>}
    </>
  );
}

function marked(parts: SnippetPart[]) {
  return parts.map((part, index) =>
    // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one snippet never reorder
    part.marked ? <mark key={index}>{part.text}</mark> : <span key={index}>{part.text}</span>,
  );
}
