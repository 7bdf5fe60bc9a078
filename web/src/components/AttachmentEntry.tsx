import { useState } from 'react';
import { fileBlob, formatFileSize } from '../api/attachments';
import { ApiError } from '../api/client';
import { saveBlob } from '../api/save-blob';
import type { Attachment } from '../api/types';
import { useApi } from '../auth/AuthContext';

interface Props {
  attachment: Attachment;
  /** Shown (and offered) to EDITOR and up while the document is not archived. */
  canDelete: boolean;
  onDelete: (attachment: Attachment) => void;
}

/** One file of the document: its name, size and type, a download with the person's token, delete. */
export function AttachmentEntry({ attachment, canDelete, onDelete }: Props) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const key = new URL(attachment.url, window.location.origin).searchParams.get('url') ?? '';

  const download = async () => {
    setBusy(true);
    setError(null);
    try {
      saveBlob(await fileBlob(api, key), attachment.fileName);
    } catch (failure) {
      setError(
        failure instanceof ApiError
          ? `“${attachment.fileName}” could not be downloaded: ${failure.message}`
          : `“${attachment.fileName}” could not be downloaded: the connection failed.`,
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <li className="attachment-entry">
      <p className="attachment-name">{attachment.fileName}</p>
      <p className="attachment-meta">
        {formatFileSize(attachment.fileSize)} · {attachment.mimeType}
        {attachment.width && attachment.height ? ` · ${attachment.width} × ${attachment.height}` : ''}
      </p>
      <div className="attachment-actions">
        <button type="button" disabled={busy} aria-label={`Download ${attachment.fileName}`} onClick={download}>
          Download
        </button>
        {canDelete && (
          <button
            type="button"
            className="danger-button"
            aria-label={`Delete ${attachment.fileName}`}
            onClick={() => onDelete(attachment)}
          >
            Delete
          </button>
        )}
      </div>
      {error && <p role="alert">{error}</p>}
    </li>
  );
}
