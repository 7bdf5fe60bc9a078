import { type SnippetPart, snippetParts } from '../api/snippet';
import type { SearchResult } from '../api/types';

/** Said before a snippet that is not the document's own text. */
const WHERE: Partial<Record<SearchResult['matchField'], string>> = {
  comment: 'In a comment:',
  attachment: 'In an attached file:',
};

/**
 * A result's title with its matches marked when the title matched, else the title and below it the
 * snippet of the content, a comment or an attached file (saying which). Nothing of the snippet reaches the page as HTML (api/snippet.ts).
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
      {!snippetIsTitle && parts.length > 0 && (
        <span className="search-snippet">
          {WHERE[result.matchField] && <span className="search-where">{WHERE[result.matchField]} </span>}
          {marked(parts)}
        </span>
      )}
    </>
  );
}

function marked(parts: SnippetPart[]) {
  return parts.map((part, index) =>
    // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one snippet never reorder
    part.marked ? <mark key={index}>{part.text}</mark> : <span key={index}>{part.text}</span>,
  );
}
