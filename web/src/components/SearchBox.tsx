import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { searchQuery } from '../api/queries';
import type { SearchResult } from '../api/types';
import { useApi } from '../auth/AuthContext';
import { SearchResultLabel } from './SearchResultLabel';

const DEBOUNCE_MS = 200;
const MAC = /Mac|iPhone|iPad/.test(navigator.userAgent);

/**
 * The header's `searchbox` "Search" (ARCHITECTURE 5.17): results as the person types, Ctrl/⌘-K
 * focuses it from anywhere. A combobox in the ARIA 1.1 shape (a wrapper with the combobox role,
 * aria-expanded and aria-controls, holding the searchbox): the input keeps the searchbox role that
 * people and checks find it by, which may not carry aria-expanded itself. ArrowUp/Down move through
 * the results (aria-activedescendant), Enter opens one, Escape closes the list.
 */
export function SearchBox({ workspaceId }: { workspaceId: string }) {
  const api = useApi();
  const navigate = useNavigate();
  const input = useRef<HTMLInputElement>(null);
  const listId = useId();
  const [text, setText] = useState('');
  const [query] = useDebouncedValue(text.trim(), DEBOUNCE_MS);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);

  const search = useQuery({
    ...searchQuery(api, workspaceId, query),
    enabled: query.length > 0,
    placeholderData: keepPreviousData,
  });
  const results: SearchResult[] = query ? (search.data ?? []) : [];
  const showing = open && query.length > 0;
  const expanded = showing && results.length > 0;

  useEffect(() => {
    const focusSearch = (event: globalThis.KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        input.current?.focus();
        input.current?.select();
      }
    };
    window.addEventListener('keydown', focusSearch);
    return () => window.removeEventListener('keydown', focusSearch);
  }, []);

  useEffect(() => {
    if (active >= 0) document.getElementById(`${listId}-${active}`)?.scrollIntoView({ block: 'nearest' });
  }, [active, listId]);

  const openResult = (result: SearchResult) => {
    setOpen(false);
    setText('');
    input.current?.blur();
    // A comment's match opens its thread (the link notifications use: useDocumentComments).
    const thread = result.commentThreadId ? `#thread-${result.commentThreadId}` : '';
    navigate(`/w/${workspaceId}/d/${result.id}${thread}`);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    switch (event.key) {
      case 'ArrowDown':
        event.preventDefault();
        setOpen(true);
        if (results.length) setActive((index) => Math.min(index + 1, results.length - 1));
        break;
      case 'ArrowUp':
        event.preventDefault();
        if (results.length) setActive((index) => Math.max(index - 1, 0));
        break;
      case 'Enter': {
        const chosen = results[Math.max(active, 0)];
        if (showing && chosen) {
          event.preventDefault();
          openResult(chosen);
        }
        break;
      }
      case 'Escape':
        if (showing) {
          // Close the list and keep the words; a second Escape clears them (the browser's own).
          event.preventDefault();
          setOpen(false);
          setActive(-1);
        }
        break;
    }
  };

  return (
    <div className="search">
      {/* biome-ignore lint/a11y/useFocusableInteractive: the searchbox inside takes the focus (ARIA 1.1 combobox) */}
      <div
        role="combobox"
        aria-label="Find documents"
        aria-expanded={expanded}
        aria-haspopup="listbox"
        aria-controls={listId}
      >
        <input
          ref={input}
          type="search"
          aria-label="Search"
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={expanded && active >= 0 ? `${listId}-${active}` : undefined}
          aria-keyshortcuts="Control+K Meta+K"
          placeholder={`Search (${MAC ? '⌘' : 'Ctrl '}K)`}
          autoComplete="off"
          spellCheck={false}
          value={text}
          onChange={(event) => {
            setText(event.currentTarget.value);
            setOpen(true);
            // New words start with nothing highlighted; Enter then opens the best match.
            setActive(-1);
          }}
          onFocus={() => setOpen(true)}
          onBlur={() => setOpen(false)}
          onKeyDown={onKeyDown}
        />
      </div>
      <div className="search-popover" hidden={!showing}>
        {search.isError && <p role="alert">{search.error.message}</p>}
        {!search.isError && search.isFetching && results.length === 0 && <p>Searching…</p>}
        {!search.isError && !search.isFetching && results.length === 0 && (
          <p>No documents match “{query}”. Try other words, or part of a word.</p>
        )}
        <div id={listId} role="listbox" aria-label="Matching documents" hidden={!expanded}>
          {results.map((result, index) => (
            // biome-ignore lint/a11y/useFocusableInteractive: the searchbox keeps the focus and points here (aria-activedescendant)
            // biome-ignore lint/a11y/useKeyWithClickEvents: the keys are the searchbox's
            <div
              key={result.id}
              id={`${listId}-${index}`}
              role="option"
              aria-selected={index === active}
              className="search-option"
              // Keep the focus in the searchbox while the pointer picks a result.
              onMouseDown={(event) => event.preventDefault()}
              onClick={() => openResult(result)}
              onMouseEnter={() => setActive(index)}
            >
              <SearchResultLabel result={result} />
            </div>
          ))}
        </div>
      </div>
      <p className="visually-hidden" role="status">
        {showing && !search.isFetching && !search.isError
          ? `${results.length} ${results.length === 1 ? 'document' : 'documents'} found`
          : ''}
      </p>
    </div>
  );
}
