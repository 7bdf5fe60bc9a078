import { useQuery } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import { archivedDocumentsQuery } from '../../api/queries';
import { useApi } from '../../auth/AuthContext';
import { displayTitle } from './tree-rows';

const LISTED = 100;

/**
 * The "Archived documents" section under the tree (named apart from the document page's
 * "Archived" banner): the documents archived themselves (their subtrees went
 * with them), fetched when it is opened, each with a "Restore" button.
 */
export function ArchivedDocuments({
  workspaceId,
  onRestore,
}: {
  workspaceId: string;
  onRestore: (id: string) => Promise<unknown>;
}) {
  const api = useApi();
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const listId = useId();
  const toggleId = useId();
  const archived = useQuery({ ...archivedDocumentsQuery(api, workspaceId), enabled: open });
  const items = archived.data ?? [];

  return (
    <section className="tree-archived">
      <button
        ref={toggle}
        id={toggleId}
        type="button"
        className="tree-archived-toggle"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen(!open)}
      >
        {/* No space between: Chromium would start the button's name with it. */}
        <span aria-hidden="true" className="tree-archived-chevron">
          {open ? '▾' : '▸'}
        </span>
        Archived documents
      </button>
      {open && (
        <div id={listId} className="tree-archived-body">
          {archived.isPending && <p role="status">Loading the archived documents…</p>}
          {archived.error && <p role="alert">{archived.error.message}</p>}
          {archived.isSuccess && items.length === 0 && (
            <p className="tree-hint">
              Nothing is archived. “Archive” in a document’s actions puts it here with everything below it, until you
              restore it.
            </p>
          )}
          {items.length > 0 && (
            <ul aria-labelledby={toggleId}>
              {items.map((doc) => {
                const title = displayTitle(doc);
                return (
                  <li key={doc.id}>
                    <Link to={`/w/${workspaceId}/d/${doc.id}`}>{title}</Link>
                    {doc.descendantCount > 0 && <span className="tree-hint"> and {doc.descendantCount} below</span>}
                    <button
                      type="button"
                      aria-label={`Restore ${title}`}
                      onClick={() => void onRestore(doc.id).then(() => toggle.current?.focus())}
                    >
                      Restore
                    </button>
                  </li>
                );
              })}
            </ul>
          )}
          {items.length >= LISTED && <p className="tree-hint">The {LISTED} most recently archived are listed.</p>}
        </div>
      )}
    </section>
  );
}
