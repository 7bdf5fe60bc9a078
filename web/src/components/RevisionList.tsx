import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { documentKeys, revisionKeys, revisionsQuery } from '../api/queries';
import type { RevisionSummary, WikiDocument } from '../api/types';
import { useApi } from '../auth/AuthContext';
import { formatWhen } from '../history/labels';
import { usePreferredLocale } from '../locale/usePreferredLocale';
import { ConfirmDialog } from './ConfirmDialog';
import { RevisionEntry } from './RevisionEntry';

/** While the panel is open, new revisions (others' edits) show up this often. */
const REFRESH_MS = 15_000;

interface Props {
  documentId: string;
  canRestore: boolean;
  canDelete: boolean;
  /** After a revision is deleted its entry is gone: focus goes back to the panel. */
  onEntryRemoved: () => void;
}

type Pending = { action: 'restore' | 'delete'; revision: RevisionSummary } | null;

/** The revisions newest first, a page at a time, with restore and delete behind a confirmation. */
export function RevisionList({ documentId, canRestore, canDelete, onEntryRemoved }: Props) {
  const api = useApi();
  const queryClient = useQueryClient();
  const list = useInfiniteQuery({ ...revisionsQuery(api, documentId), staleTime: 0, refetchInterval: REFRESH_MS });
  const [selected, setSelected] = useState<string | null>(null);
  const [pending, setPending] = useState<Pending>(null);
  const [busy, setBusy] = useState(false);
  const locale = usePreferredLocale();
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState('');

  // A revision written between two pages would appear twice: keep its first place.
  const revisions = useMemo(() => {
    const seen = new Set<string>();
    return (list.data?.pages ?? [])
      .flatMap((page) => page.content)
      .filter((revision) => !seen.has(revision.id) && seen.add(revision.id));
  }, [list.data]);

  const ask = (action: 'restore' | 'delete', revision: RevisionSummary) => {
    setError(null);
    setPending({ action, revision });
  };

  const confirm = async () => {
    if (!pending) return;
    const { action, revision } = pending;
    const base = `/documents/${documentId}/revisions/${revision.id}`;
    setBusy(true);
    setError(null);
    try {
      if (action === 'restore') {
        const restored = await api.post<WikiDocument>(`${base}/restore`);
        // The editor follows through the collab server; the title and the rest come from here.
        queryClient.setQueryData(documentKeys.detail(documentId), restored);
        setDone(`The version of ${formatWhen(revision.createdAt, locale)} is restored; everyone editing sees it now.`);
      } else {
        await api.delete(base);
        if (selected === revision.id) setSelected(null);
        setDone(`The version of ${formatWhen(revision.createdAt, locale)} is deleted.`);
        onEntryRemoved();
      }
      setPending(null);
      void queryClient.invalidateQueries({ queryKey: revisionKeys.all(documentId) });
      void queryClient.invalidateQueries({ queryKey: documentKeys.all });
    } catch (failure) {
      setError(`${action === 'restore' ? 'Restoring' : 'Deleting'} failed: ${(failure as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  const newestId = list.data?.pages[0]?.content[0]?.id;
  const pendingWhen = pending ? formatWhen(pending.revision.createdAt, locale) : '';

  return (
    <div className="revision-list-area">
      <p role="status" className="quiet">
        {done}
      </p>
      {list.isPending && <p className="quiet">Loading the history…</p>}
      {list.error && !list.isFetchNextPageError && (
        <p role="alert">The history could not be loaded: {list.error.message}</p>
      )}
      {list.isSuccess && revisions.length === 0 && (
        <p className="quiet">No versions yet: they are kept as the document is edited.</p>
      )}
      {revisions.length > 0 && (
        <ol className="revision-list" aria-label="Versions, newest first">
          {revisions.map((revision) => (
            <RevisionEntry
              key={revision.id}
              revision={revision}
              isCurrent={revision.id === newestId}
              selected={selected === revision.id}
              onToggle={() => setSelected(selected === revision.id ? null : revision.id)}
              canRestore={canRestore}
              canDelete={canDelete}
              onRestore={() => ask('restore', revision)}
              onDelete={() => ask('delete', revision)}
            />
          ))}
        </ol>
      )}
      {list.hasNextPage && (
        <button type="button" disabled={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
          {list.isFetchingNextPage ? 'Loading more…' : 'Load more'}
        </button>
      )}
      {list.isFetchNextPageError && <p role="alert">More versions could not be loaded: {list.error?.message}</p>}
      <ConfirmDialog
        opened={pending !== null}
        title={pending?.action === 'delete' ? 'Delete this version?' : 'Restore this version?'}
        confirmLabel={pending?.action === 'delete' ? 'Delete' : 'Restore'}
        busy={busy}
        error={error}
        onConfirm={() => void confirm()}
        onCancel={() => setPending(null)}
      >
        {pending?.action === 'delete' ? (
          <p>The version of {pendingWhen} leaves the history for good. The document itself does not change.</p>
        ) : (
          <p>
            The title, text, icon and cover of {pendingWhen} become the document’s, for everyone editing it now. The
            current text stays in the history, so this can be undone.
          </p>
        )}
      </ConfirmDialog>
    </div>
  );
}
