import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { formatFileSize } from '../../api/attachments';
import { IMPORT_ACCEPT, importSizeError, jobStartErrorMessage, startImport } from '../../api/jobs';
import { importTermsQuery } from '../../api/queries';
import { useApi } from '../../auth/AuthContext';
import { JobDialog } from './JobDialog';
import { JobProgress } from './JobProgress';
import { useJob } from './useJob';

interface Props {
  workspaceId: string;
  /** The document open when the dialog was started: offered as the place to import under. */
  current: { id: string; title: string } | null;
  opened: boolean;
  onClose: () => void;
}

/**
 * Uploads a Markdown, HTML or Word file, or a zip of them, to be made into documents by a job
 * (ARCHITECTURE 5.19); shows the upload, then the job, then a link to what it made.
 */
export function ImportDialog({ workspaceId, current, opened, onClose }: Props) {
  const api = useApi();
  const hintId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [underCurrent, setUnderCurrent] = useState(false);
  const [uploaded, setUploaded] = useState<number | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { finished } = useJob(jobId);
  const terms = useQuery({ ...importTermsQuery(api), enabled: opened }).data;
  const busy = uploaded !== null || (jobId !== null && !finished);

  const start = async (event: FormEvent) => {
    event.preventDefault();
    if (!file) {
      setError('Choose a file to import first.');
      return;
    }
    const tooLarge = terms ? importSizeError(file, terms.maxBytes) : null;
    if (tooLarge) {
      setError(tooLarge);
      return;
    }
    setError(null);
    setJobId(null);
    setUploaded(0);
    try {
      const parentId = underCurrent && current ? current.id : null;
      setJobId(await startImport(api, { workspaceId, parentId }, file, { onProgress: setUploaded }));
    } catch (failure) {
      setError(jobStartErrorMessage(failure, 'import', file.name));
    } finally {
      setUploaded(null);
    }
  };

  return (
    <JobDialog opened={opened} title="Import" onClose={onClose}>
      <form className="stack-form" onSubmit={(event) => void start(event)}>
        <label>
          File to import
          <input
            type="file"
            accept={IMPORT_ACCEPT}
            aria-describedby={hintId}
            onChange={(event) => {
              setFile(event.currentTarget.files?.[0] ?? null);
              setError(null);
            }}
          />
        </label>
        <p id={hintId} className="quiet">
          Markdown (.md), HTML (.html, .htm) or Word (.docx), or a .zip of them (folders become pages below pages;
          Notion and Confluence exports are understood).{terms && ` Up to ${formatFileSize(terms.maxBytes)}.`}
        </p>
        {current && (
          <label className="checkbox-label">
            <input type="checkbox" checked={underCurrent} onChange={(event) => setUnderCurrent(event.target.checked)} />
            Import under this page (“{current.title || 'Untitled'}”)
          </label>
        )}
        <div className="form-actions">
          <button type="submit" disabled={busy}>
            Start import
          </button>
        </div>
        {uploaded !== null && (
          <>
            <p role="status">Uploading {file?.name}…</p>
            <progress aria-label="Upload progress" value={uploaded} max={1} />
          </>
        )}
        {error && <p role="alert">{error}</p>}
      </form>
      {jobId && <JobProgress key={jobId} jobId={jobId} onLeave={onClose} />}
    </JobDialog>
  );
}
