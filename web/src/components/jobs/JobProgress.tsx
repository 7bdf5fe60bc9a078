import { useState } from 'react';
import { Link } from 'react-router';
import { downloadJobFile } from '../../api/jobs';
import type { Job } from '../../api/types';
import { useApi } from '../../auth/AuthContext';
import { useJob } from './useJob';

const KIND_NAME = { export: 'Export', import: 'Import' } as const;

function statusText(job: Job): string {
  const { done, total } = job.progress;
  const what = job.kind === 'import' ? 'files and documents' : 'documents';
  switch (job.status) {
    case 'queued':
      return `${KIND_NAME[job.kind]} waiting to start…`;
    case 'running':
      return total > 0
        ? `${KIND_NAME[job.kind]} running: ${done} of ${total} ${what}`
        : `${KIND_NAME[job.kind]} running…`;
    case 'done':
      if (job.kind === 'import') {
        const made = job.result?.documentIds?.length ?? 0;
        return `Import finished: ${made} ${made === 1 ? 'document' : 'documents'} created.`;
      }
      return `Export finished: ${done} of ${total} documents.`;
    case 'failed':
      return `${KIND_NAME[job.kind]} failed.`;
  }
}

/**
 * How far a job is (status line and a progress bar named after it), then its result: the zip to
 * download, or a link to the imported documents; the job's own message when it failed.
 */
export function JobProgress({ jobId, onLeave }: { jobId: string; onLeave?: () => void }) {
  const api = useApi();
  const { job, error } = useJob(jobId);
  const [saved, setSaved] = useState('');
  const [saveError, setSaveError] = useState<string | null>(null);

  if (!job) {
    return error ? (
      <p role="alert">How the job is doing could not be read: {error.message}</p>
    ) : (
      <p role="status">Starting…</p>
    );
  }
  const { done, total } = job.progress;
  const download = async () => {
    setSaveError(null);
    try {
      setSaved(`Downloaded ${await downloadJobFile(api, job)}`);
    } catch (failure) {
      setSaved('');
      setSaveError(`The zip could not be downloaded: ${(failure as Error).message}`);
    }
  };
  const firstImported = job.result?.documentIds?.[0];

  return (
    <div className="job-progress">
      <p role="status">{statusText(job)}</p>
      {job.status !== 'failed' && (
        <progress
          aria-label={`${KIND_NAME[job.kind]} progress`}
          value={job.status === 'done' ? 1 : total > 0 ? done : undefined}
          max={job.status === 'done' ? 1 : total > 0 ? total : undefined}
        />
      )}
      {job.status === 'failed' && <p role="alert">{job.error ?? 'The job failed.'}</p>}
      {job.status === 'done' && job.kind === 'export' && (
        <div className="form-actions">
          <button type="button" onClick={() => void download()}>
            Download
          </button>
          <span className="quiet">{saved}</span>
        </div>
      )}
      {saveError && <p role="alert">{saveError}</p>}
      {job.status === 'done' && job.kind === 'import' && firstImported && (
        <p>
          <Link to={`/w/${job.workspaceId}/d/${firstImported}`} onClick={onLeave}>
            Open imported documents
          </Link>
        </p>
      )}
      {job.status === 'done' && (job.result?.warningCount ?? 0) > 0 && (
        <p className="quiet">
          {job.result?.warningCount} parts could not be carried over as they were (links to files not imported, images
          of types not taken).
        </p>
      )}
    </div>
  );
}
