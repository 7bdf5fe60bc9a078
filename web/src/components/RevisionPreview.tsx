import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useMemo, useState } from 'react';
import { parseBlocks } from '../api/blocks';
import { documentQuery, revisionDiffQuery, revisionQuery } from '../api/queries';
import type { RevisionSummary } from '../api/types';
import { useApi } from '../auth/AuthContext';
import { type CompareRow, compareRows, plainRows } from '../history/compare';
import { formatWhen } from '../history/labels';
import { usePreferredLocale } from '../locale/usePreferredLocale';

interface Props {
  /** The element id the entry's toggle controls. */
  id: string;
  revision: RevisionSummary;
}

/**
 * A revision read-only, with what changed since then marked against the current text: words and
 * blocks added since in <ins>, removed since in <del>, moved blocks tagged. Everything is React
 * text; nothing from the API is inserted as HTML.
 */
export function RevisionPreview({ id, revision }: Props) {
  const api = useApi();
  const { documentId } = revision;
  const [showChanges, setShowChanges] = useState(true);
  const locale = usePreferredLocale();
  const state = useQuery(revisionQuery(api, documentId, revision.id));
  const diff = useQuery(revisionDiffQuery(api, documentId, revision.id));
  // The added blocks' text is read from the document as it is now.
  const current = useQuery({ ...documentQuery(api, documentId), staleTime: 0 });

  const rows = useMemo(() => {
    const blocks = parseBlocks(state.data?.content);
    if (!showChanges || !diff.data || !current.data) return plainRows(blocks);
    return compareRows(blocks, parseBlocks(current.data.content), diff.data.blocks);
  }, [state.data, diff.data, current.data, showChanges]);

  const when = formatWhen(revision.createdAt, locale);
  const failure = state.error ?? diff.error ?? current.error;
  const changed = diff.data?.blocks.length ?? 0;

  return (
    <section id={id} className="revision-preview" aria-label={`Version of ${when}`}>
      {failure && <p role="alert">This version could not be shown: {failure.message}</p>}
      {!state.data && !failure && <p className="quiet">Loading the version…</p>}
      {state.data && (
        <>
          <label className="checkbox-label">
            <input type="checkbox" checked={showChanges} onChange={(event) => setShowChanges(event.target.checked)} />
            Highlight changes since this version
          </label>
          {showChanges && diff.data && (
            <p className="quiet">
              {changed === 0 ? (
                'The current text is the same as this version.'
              ) : (
                <>
                  Compared with the current text: <ins>added since</ins>, <del>removed since</del>.
                </>
              )}
            </p>
          )}
          {showChanges && !diff.data && !diff.error && <p className="quiet">Comparing with the current text…</p>}
          <p className="revision-preview-title">
            <span className="quiet">Title: </span>
            {state.data.title || 'Untitled'}
            {showChanges && current.data && current.data.title !== state.data.title && (
              <span className="quiet"> (now “{current.data.title || 'Untitled'}”)</span>
            )}
          </p>
          {rows.length === 0 ? (
            <p className="quiet">This version was empty.</p>
          ) : (
            <div className="revision-body">
              {numbered(rows).map(({ row, number }) => (
                <RevisionBlock key={row.uid} row={row} number={number} />
              ))}
            </div>
          )}
        </>
      )}
    </section>
  );
}

/** The number each numbered-list item shows, counted per depth and restarted by any other block there. */
function numbered(rows: CompareRow[]): { row: CompareRow; number?: number }[] {
  const counters: number[] = [];
  return rows.map((row) => {
    counters.length = row.depth + 1;
    if (row.kind !== 'numberedListItem') {
      counters[row.depth] = 0;
      return { row };
    }
    counters[row.depth] = (counters[row.depth] ?? 0) + 1;
    return { row, number: counters[row.depth] };
  });
}

function Hidden({ children }: { children: string }) {
  return <span className="visually-hidden">{children}</span>;
}

function marker(row: CompareRow, number?: number): string {
  switch (row.kind) {
    case 'bulletListItem':
    case 'toggleListItem':
      return '• ';
    case 'numberedListItem':
      return `${number ?? 1}. `;
    case 'checkListItem':
      return row.checked ? '☑ ' : '☐ ';
    default:
      return '';
  }
}

/** One block: its text, or its words with what changed, as plain React text. */
function RevisionBlock({ row, number }: { row: CompareRow; number?: number }) {
  let body: ReactNode = row.text;
  if (row.change === 'added') {
    body = (
      <ins>
        <Hidden>Added since: </Hidden>
        {row.text}
      </ins>
    );
  } else if (row.change === 'removed') {
    body = (
      <del>
        <Hidden>Removed since: </Hidden>
        {row.text}
      </del>
    );
  } else if (row.change === 'changed' && row.ops) {
    body = row.ops.map((op, index) => {
      const key = `${index}:${op.op}`;
      if (op.op === 'insert') {
        return (
          <ins key={key}>
            <Hidden>[added: </Hidden>
            {op.text}
            <Hidden>]</Hidden>
          </ins>
        );
      }
      if (op.op === 'delete') {
        return (
          <del key={key}>
            <Hidden>[removed: </Hidden>
            {op.text}
            <Hidden>]</Hidden>
          </del>
        );
      }
      return <span key={key}>{op.text}</span>;
    });
  }
  return (
    <div
      className={`revision-block revision-block-${row.kind}`}
      data-change={row.change}
      style={{ marginInlineStart: `${row.depth * 1.25}rem` }}
    >
      {marker(row, number)}
      {body}
      {row.change === 'moved' && <span className="revision-moved"> moved since</span>}
    </div>
  );
}
