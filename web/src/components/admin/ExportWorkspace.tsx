import { useState } from 'react';
import { ExportTreeDialog } from '../jobs/ExportTreeDialog';

/** Settings' "Export workspace": every document in one zip, for any member (ARCHITECTURE 5.19). */
export function ExportWorkspace({ workspaceId, name }: { workspaceId: string; name: string }) {
  const [opened, setOpened] = useState(false);
  return (
    <section aria-labelledby="export-heading">
      <h2 id="export-heading">Export</h2>
      <p className="hint">A zip of every document of this workspace, as Markdown, HTML, PDF or Word.</p>
      <button type="button" onClick={() => setOpened(true)}>
        Export workspace
      </button>
      <ExportTreeDialog
        target={{ kind: 'workspace', id: workspaceId, name }}
        opened={opened}
        onClose={() => setOpened(false)}
      />
    </section>
  );
}
