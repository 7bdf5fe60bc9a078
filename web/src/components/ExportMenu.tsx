import './ExportMenu.css';
import { useState } from 'react';
import { downloadExport, EXPORT_FORMATS, exportErrorMessage } from '../api/export-download';
import type { ExportFormat } from '../api/types';
import { useApi } from '../auth/AuthContext';
import { ExportTreeDialog } from './jobs/ExportTreeDialog';
import { MenuButton } from './MenuButton';

const FORMATS = Object.keys(EXPORT_FORMATS) as ExportFormat[];
/** The menu item opening the dialog for a zip of the document and everything below it. */
const WITH_SUB_PAGES = 'with-sub-pages';

interface Props {
  documentId: string;
  title: string;
}

/**
 * The `button` "Export" and its `menuitem`s "PDF", "Word", "Markdown": the chosen file is made by
 * the export service and downloaded under the document's title. One export at a time from here;
 * progress in a status line, failures in an alert. "With sub-pages (zip)…" opens a dialog for a
 * zip of the document and everything below it, made by a job.
 */
export function ExportMenu({ documentId, title }: Props) {
  const api = useApi();
  const [preparing, setPreparing] = useState<ExportFormat | null>(null);
  const [status, setStatus] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [zipDialog, setZipDialog] = useState(false);

  const exportAs = async (format: ExportFormat) => {
    const { label } = EXPORT_FORMATS[format];
    setPreparing(format);
    setError(null);
    setStatus(`Preparing ${label}…`);
    try {
      const name = await downloadExport(api, documentId, title, format);
      setStatus(`Downloaded ${name}`);
    } catch (failure) {
      setStatus('');
      setError(exportErrorMessage(failure, label));
    } finally {
      setPreparing(null);
    }
  };

  return (
    <div className="export-menu">
      <MenuButton
        label="Export"
        items={[
          ...FORMATS.map((format) => ({
            key: format,
            label: EXPORT_FORMATS[format].label,
            disabled: preparing !== null,
          })),
          { key: WITH_SUB_PAGES, label: 'With sub-pages (zip)…' },
        ]}
        onSelect={(key) => (key === WITH_SUB_PAGES ? setZipDialog(true) : void exportAs(key as ExportFormat))}
      />
      <ExportTreeDialog
        key={documentId}
        target={{ kind: 'document', id: documentId, title }}
        opened={zipDialog}
        onClose={() => setZipDialog(false)}
      />
      <p role="status" className="export-status quiet">
        {status}
      </p>
      {error && (
        <p role="alert" className="export-error">
          {error}
        </p>
      )}
    </div>
  );
}
