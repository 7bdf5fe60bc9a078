import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { documentKeys } from '../api/queries';
import type { WikiDocument } from '../api/types';
import { useApi } from '../auth/AuthContext';

/** An archived document is read-only until restored; editors and above may restore it here. */
export function ArchivedBanner({ document, canRestore }: { document: WikiDocument; canRestore: boolean }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const restore = async () => {
    setBusy(true);
    setError(null);
    try {
      const restored = await api.put<WikiDocument>(`/documents/${document.id}`, { isArchived: false });
      queryClient.setQueryData(documentKeys.detail(document.id), restored);
      await queryClient.invalidateQueries({ queryKey: documentKeys.all });
    } catch (failure) {
      setError(`The document could not be restored: ${(failure as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="banner" aria-label="Archived">
      <p>
        This document is archived: it is read-only and left out of the sidebar and search.
        {canRestore ? ' Restore it to edit it again.' : ' Ask an editor to restore it.'}
      </p>
      {canRestore && (
        <button type="button" onClick={restore} disabled={busy}>
          Restore
        </button>
      )}
      {error && <p role="alert">{error}</p>}
    </section>
  );
}
