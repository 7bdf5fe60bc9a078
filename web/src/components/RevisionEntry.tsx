import { useId } from 'react';
import type { RevisionSummary } from '../api/types';
import { formatWhen, nameOf, otherContributors, SOURCE_LABELS } from '../history/labels';
import { usePreferredLocale } from '../locale/usePreferredLocale';
import { RevisionPreview } from './RevisionPreview';

interface Props {
  revision: RevisionSummary;
  /** The newest revision holds the document as it is now: its Restore is disabled, it is not deletable. */
  isCurrent: boolean;
  selected: boolean;
  onToggle: () => void;
  canRestore: boolean;
  canDelete: boolean;
  onRestore: () => void;
  onDelete: () => void;
}

/** One revision of the list: when, its name, who and how; its preview opens below it. */
export function RevisionEntry({
  revision,
  isCurrent,
  selected,
  onToggle,
  canRestore,
  canDelete,
  onRestore,
  onDelete,
}: Props) {
  const previewId = useId();
  const locale = usePreferredLocale();
  const others = otherContributors(revision);
  return (
    <li className="revision-entry" data-selected={selected || undefined}>
      <button
        type="button"
        className="revision-toggle"
        aria-expanded={selected}
        aria-controls={selected ? previewId : undefined}
        onClick={onToggle}
      >
        {revision.name && <strong className="revision-name">{revision.name}</strong>}
        <time dateTime={revision.createdAt}>{formatWhen(revision.createdAt, locale)}</time>
      </button>
      <p className="revision-meta">
        <span className="revision-source">{SOURCE_LABELS[revision.source] ?? revision.source}</span> by{' '}
        {nameOf(revision.createdBy)}
        {others.length > 0 && <>, with {others.map(nameOf).join(', ')}</>}
        {isCurrent && <span className="revision-current"> · Current version</span>}
      </p>
      {(canRestore || (canDelete && !isCurrent)) && (
        <div className="revision-actions">
          {canRestore && (
            // Every entry has its Restore (ARCHITECTURE 5.17); the current one has nothing to bring back.
            <button
              type="button"
              onClick={onRestore}
              disabled={isCurrent}
              title={isCurrent ? 'This is the document as it is now' : undefined}
            >
              Restore
            </button>
          )}
          {canDelete && !isCurrent && (
            <button type="button" className="danger-button" onClick={onDelete}>
              Delete
            </button>
          )}
        </div>
      )}
      {selected && <RevisionPreview id={previewId} revision={revision} />}
    </li>
  );
}
