import './HistoryPanel.css';
import { useEffect, useRef } from 'react';
import { NameVersionForm } from './NameVersionForm';
import { RevisionList } from './RevisionList';

interface Props {
  id: string;
  documentId: string;
  /** EDITOR and up name versions. */
  canName: boolean;
  /** EDITOR and up restore, while the document is not archived. */
  canRestore: boolean;
  /** Archived documents are restored from the archive before any version. */
  archived: boolean;
  /** ADMIN and up delete versions. */
  canDelete: boolean;
  /** Closes the panel; the page gives focus back to the History button. */
  onClose: () => void;
}

/**
 * The `complementary` region "History" (ARCHITECTURE 5.16/5.17): name the current version, the
 * revisions with a preview each, restore and delete. Focus moves to its heading when it opens;
 * Escape anywhere in it closes it.
 */
export function HistoryPanel({ id, documentId, canName, canRestore, archived, canDelete, onClose }: Props) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, []);

  return (
    <aside
      id={id}
      aria-label="History"
      className="side-panel history-panel"
      onKeyDown={(event) => {
        if (event.key !== 'Escape' || event.defaultPrevented) return;
        event.stopPropagation();
        onClose();
      }}
    >
      <div className="history-heading">
        <h2 ref={heading} tabIndex={-1}>
          History
        </h2>
        <button type="button" onClick={onClose}>
          Close history
        </button>
      </div>
      {canName && <NameVersionForm documentId={documentId} />}
      {archived && canName && (
        <p className="quiet">This document is archived: restore it from the archive before restoring a version.</p>
      )}
      <RevisionList
        documentId={documentId}
        canRestore={canRestore}
        canDelete={canDelete}
        onEntryRemoved={() => heading.current?.focus()}
      />
    </aside>
  );
}
