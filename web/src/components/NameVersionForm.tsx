import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { revisionKeys } from '../api/queries';
import type { RevisionSummary } from '../api/types';
import { useApi } from '../auth/AuthContext';

/** The server's limit on a version's name. */
const NAME_MAX = 200;

/** "Name this version": keeps the current state as a named revision, never pruned (EDITOR and up). */
export function NameVersionForm({ documentId }: { documentId: string }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState('');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) {
      setError('Type a name for the version first.');
      return;
    }
    setBusy(true);
    setError(null);
    setDone('');
    try {
      const named = await api.post<RevisionSummary>(`/documents/${documentId}/revisions`, { name: trimmed });
      setName('');
      setDone(`The current version is named “${named.name ?? trimmed}” and will be kept.`);
      await queryClient.invalidateQueries({ queryKey: revisionKeys.all(documentId) });
    } catch (failure) {
      setError(`The version could not be named: ${(failure as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="name-version" onSubmit={submit}>
      <label>
        Version name
        <input
          type="text"
          value={name}
          maxLength={NAME_MAX}
          placeholder="e.g. Sent for review"
          onChange={(event) => setName(event.target.value)}
        />
      </label>
      <button type="submit" disabled={busy}>
        Name this version
      </button>
      {error && <p role="alert">{error}</p>}
      <p role="status" className="quiet">
        {done}
      </p>
    </form>
  );
}
