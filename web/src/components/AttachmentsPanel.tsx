import './AttachmentsPanel.css';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { attachmentKeys, attachmentsQuery } from '../api/queries';
import type { Attachment } from '../api/types';
import { useApi } from '../auth/AuthContext';
import { AttachmentEntry } from './AttachmentEntry';
import { ConfirmDialog } from './ConfirmDialog';

interface Props {
  id: string;
  documentId: string;
  /** EDITOR and up delete files, while the document is not archived. */
  canDelete: boolean;
  /** Closes the panel; the page gives focus back to the Attachments button. */
  onClose: () => void;
}

/**
 * The `complementary` region "Attachments": the files uploaded to the document, oldest first.
 * Focus moves to its heading when it opens; Escape closes it.
 */
export function AttachmentsPanel({ id, documentId, canDelete, onClose }: Props) {
  const api = useApi();
  const queryClient = useQueryClient();
  const attachments = useQuery(attachmentsQuery(api, documentId));
  const heading = useRef<HTMLHeadingElement>(null);
  const [deleting, setDeleting] = useState<Attachment | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    heading.current?.focus();
  }, []);

  const confirmDelete = async () => {
    if (!deleting) return;
    setBusy(true);
    setError(null);
    try {
      await api.delete(`/attachments/${deleting.id}`);
      setDeleting(null);
      await queryClient.invalidateQueries({ queryKey: attachmentKeys.list(documentId) });
      heading.current?.focus();
    } catch (failure) {
      setError(`The file could not be deleted: ${(failure as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <aside
      id={id}
      aria-label="Attachments"
      className="side-panel attachments-panel"
      onKeyDown={(event) => {
        if (event.key !== 'Escape' || event.defaultPrevented) return;
        event.stopPropagation();
        onClose();
      }}
    >
      <div className="attachments-heading">
        <h2 ref={heading} tabIndex={-1}>
          Attachments
        </h2>
        <button type="button" onClick={onClose}>
          Close attachments
        </button>
      </div>
      {attachments.error ? (
        <p role="alert">The attachments could not be loaded: {attachments.error.message}</p>
      ) : !attachments.data ? (
        <p className="loading">Loading the attachments…</p>
      ) : attachments.data.length === 0 ? (
        <p className="quiet">
          No files yet. Drop or paste a file into the document, or type “/” and choose Image or File to upload one.
        </p>
      ) : (
        <ul className="attachment-list">
          {attachments.data.map((attachment) => (
            <AttachmentEntry key={attachment.id} attachment={attachment} canDelete={canDelete} onDelete={setDeleting} />
          ))}
        </ul>
      )}
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete this file?"
        confirmLabel="Delete file"
        busy={busy}
        error={error}
        onConfirm={confirmDelete}
        onCancel={() => {
          setDeleting(null);
          setError(null);
        }}
      >
        <p>
          “{deleting?.fileName}” is deleted for everyone. Where the document shows it, an empty image or file block
          stays.
        </p>
      </ConfirmDialog>
    </aside>
  );
}
