import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { documentKeys } from '../api/queries';
import type { WikiDocument } from '../api/types';
import { useApi } from '../auth/AuthContext';

/** Where anyone reads a published document (the gateway adds link-preview tags there). */
export function publicLink(documentId: string): string {
  return `${window.location.origin}/p/${documentId}`;
}

interface Props {
  document: WikiDocument;
  /** EDITOR and above publish and unpublish; everyone may see and copy the link. */
  canPublish: boolean;
  opened: boolean;
  onClose: () => void;
}

/** Publish to the web, stop publishing, and the public link with a copy button. */
export function ShareDialog({ document, canPublish, opened, onClose }: Props) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState('');
  const dialog = useRef<HTMLDialogElement>(null);
  const headingId = useId();
  const link = publicLink(document.id);

  // A native modal dialog: the browser traps focus, closes it on Escape and gives focus back.
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (opened && !element.open) {
      setCopied('');
      setError(null);
      element.showModal();
    }
    if (!opened && element.open) element.close();
  }, [opened]);
  const published = document.isPublished;

  const setPublished = async (publish: boolean) => {
    setBusy(true);
    setError(null);
    try {
      await api.post(`/documents/${document.id}/${publish ? 'publish' : 'unpublish'}`);
      queryClient.setQueryData<WikiDocument>(documentKeys.detail(document.id), (current) =>
        current ? { ...current, isPublished: publish } : current,
      );
      void queryClient.invalidateQueries({ queryKey: documentKeys.detail(document.id) });
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
      setCopied('The link is copied.');
    } catch {
      setCopied('Copying is not allowed here: select the link and copy it yourself.');
    }
  };

  return (
    <dialog ref={dialog} aria-labelledby={headingId} className="dialog" onClose={onClose}>
      <div className="dialog-heading">
        <h2 id={headingId}>Share</h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <div className="stack-form">
        <p>
          {published
            ? 'Published: anyone with the link can read this document, without signing in.'
            : 'Not published: only members of this workspace can read this document.'}
        </p>
        {published && (
          <>
            <label>
              Public link
              <input type="text" readOnly value={link} onFocus={(e) => e.target.select()} />
            </label>
            <div className="form-actions">
              <button type="button" onClick={copy}>
                Copy link
              </button>
              <a href={link} target="_blank" rel="noreferrer">
                Open the public page
              </a>
            </div>
            <p role="status" className="quiet">
              {copied}
            </p>
          </>
        )}
        {canPublish ? (
          <div className="form-actions">
            {published ? (
              <button type="button" disabled={busy} onClick={() => setPublished(false)}>
                Unpublish
              </button>
            ) : (
              <button type="button" disabled={busy || document.isArchived} onClick={() => setPublished(true)}>
                Publish
              </button>
            )}
          </div>
        ) : (
          <p className="quiet">Only editors can publish or unpublish this document.</p>
        )}
        {canPublish && document.isArchived && !published && (
          <p className="quiet">Restore the document before publishing it.</p>
        )}
        {error && <p role="alert">{error}</p>}
      </div>
    </dialog>
  );
}
