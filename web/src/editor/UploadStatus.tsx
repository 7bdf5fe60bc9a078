import type { UploadState } from './files';

/** Uploads under way (a status line with the percent each) and those that failed (an alert each). */
export function UploadStatus({ uploads, onDismiss }: { uploads: UploadState[]; onDismiss: (id: number) => void }) {
  const running = uploads.filter((u) => u.error === null);
  const failed = uploads.filter((u) => u.error !== null);
  return (
    <div className="upload-status">
      <div role="status">
        {running.map((u) => (
          <p key={u.id} className="upload-progress">
            Uploading “{u.fileName}”: {u.percent}%
            <progress max={100} value={u.percent} aria-hidden="true" />
          </p>
        ))}
      </div>
      {failed.map((u) => (
        <div key={u.id} role="alert" className="upload-error">
          <span>{u.error}</span>
          <button type="button" onClick={() => onDismiss(u.id)}>
            Dismiss
          </button>
        </div>
      ))}
    </div>
  );
}
