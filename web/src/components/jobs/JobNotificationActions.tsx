import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiError } from '../../api/client';
import { downloadJobFile } from '../../api/jobs';
import type { AppNotification, Job } from '../../api/types';
import { useApi } from '../../auth/AuthContext';

interface Props {
  notification: AppNotification;
  /** What the entry's buttons are about ("The export is ready in “Plan”"), for their names. */
  subject: string;
  /** The result was used: the entry counts as read. */
  onUsed: () => void;
  /** Going to the imported documents leaves the panel. */
  onLeave: () => void;
}

function failureText(error: unknown): string {
  if (error instanceof ApiError && error.code === 'EXPORT_EXPIRED') {
    return 'The zip is no longer kept (exports expire a day after they finish): export again.';
  }
  if (error instanceof ApiError && error.status === 404) return 'This job is no longer kept.';
  return `That did not work: ${(error as Error).message}`;
}

/**
 * A JOB_FINISHED notification's way to the result, for a job whose dialog was closed: the export's
 * zip, the first imported document, or why the job failed.
 */
export function JobNotificationActions({ notification, subject, onUsed, onLeave }: Props) {
  const api = useApi();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<{ text: string; alert: boolean } | null>(null);
  const { jobId, kind, status } = notification.metadata as { jobId?: string; kind?: string; status?: string };
  if (typeof jobId !== 'string') return null;

  const act = async (action: () => Promise<string | null>) => {
    setBusy(true);
    setSaid(null);
    try {
      const text = await action();
      if (text) setSaid({ text, alert: false });
      onUsed();
    } catch (failure) {
      setSaid({ text: failureText(failure), alert: true });
    } finally {
      setBusy(false);
    }
  };
  const download = () => act(async () => `Downloaded ${await downloadJobFile(api, { id: jobId, result: null })}`);
  const openImported = () =>
    act(async () => {
      const job = await api.get<Job>(`/jobs/${jobId}`);
      const first = job.result?.documentIds?.[0];
      if (!first) return 'The import made no documents.';
      onLeave();
      navigate(`/w/${job.workspaceId}/d/${first}`);
      return null;
    });
  const explain = () => act(async () => (await api.get<Job>(`/jobs/${jobId}`)).error ?? 'The job failed.');

  return (
    <div className="notification-actions">
      {status === 'done' && kind === 'export' && (
        <button type="button" disabled={busy} onClick={() => void download()} aria-label={`Download: ${subject}`}>
          Download
        </button>
      )}
      {status === 'done' && kind === 'import' && (
        <button
          type="button"
          disabled={busy}
          onClick={() => void openImported()}
          aria-label={`Open imported documents: ${subject}`}
        >
          Open imported documents
        </button>
      )}
      {status === 'failed' && (
        <button type="button" disabled={busy} onClick={() => void explain()} aria-label={`Why it failed: ${subject}`}>
          Why it failed
        </button>
      )}
      {said && <p role={said.alert ? 'alert' : 'status'}>{said.text}</p>}
    </div>
  );
}
