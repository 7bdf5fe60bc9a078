import { type FormEvent, useState } from 'react';
import { jobStartErrorMessage, startDocumentExport, startWorkspaceExport, TREE_EXPORT_FORMATS } from '../../api/jobs';
import type { TreeExportFormat } from '../../api/types';
import { useApi } from '../../auth/AuthContext';
import { JobDialog } from './JobDialog';
import { JobProgress } from './JobProgress';
import { useJob } from './useJob';

export type ExportTarget =
  | { kind: 'document'; id: string; title: string }
  | { kind: 'workspace'; id: string; name: string };

interface Props {
  target: ExportTarget;
  opened: boolean;
  onClose: () => void;
}

/**
 * A zip of a document with everything below it, or of a whole workspace, in a chosen format: made
 * by a job whose progress shows here. Closing the dialog leaves the job running; it is shown again
 * when the dialog reopens, and a notification says when it is done.
 */
export function ExportTreeDialog({ target, opened, onClose }: Props) {
  const api = useApi();
  const [format, setFormat] = useState<TreeExportFormat>('markdown');
  const [jobId, setJobId] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { finished } = useJob(jobId);
  const running = jobId !== null && !finished;
  const title =
    target.kind === 'document' ? `Export “${target.title || 'Untitled'}” with sub-pages` : 'Export workspace';

  const start = async (event: FormEvent) => {
    event.preventDefault();
    setStarting(true);
    setError(null);
    try {
      setJobId(
        target.kind === 'document'
          ? await startDocumentExport(api, target.id, format)
          : await startWorkspaceExport(api, target.id, format),
      );
    } catch (failure) {
      setError(jobStartErrorMessage(failure, 'export'));
    } finally {
      setStarting(false);
    }
  };

  return (
    <JobDialog opened={opened} title={title} onClose={onClose}>
      <form className="stack-form" onSubmit={(event) => void start(event)}>
        <p className="quiet">
          {target.kind === 'document'
            ? 'One zip: this document and every document below it, in folders that mirror the tree, with their images and files.'
            : `One zip: every document of “${target.name}”, in folders that mirror the tree, with their images and files. Archived documents are left out.`}
        </p>
        <fieldset className="job-formats">
          <legend>Format</legend>
          {TREE_EXPORT_FORMATS.map((option) => (
            <label key={option.format}>
              <input
                type="radio"
                name="format"
                value={option.format}
                checked={format === option.format}
                onChange={() => setFormat(option.format)}
              />
              {option.label}
            </label>
          ))}
        </fieldset>
        <div className="form-actions">
          <button type="submit" disabled={starting || running}>
            Start export
          </button>
        </div>
        {error && <p role="alert">{error}</p>}
      </form>
      {jobId && <JobProgress key={jobId} jobId={jobId} />}
    </JobDialog>
  );
}
