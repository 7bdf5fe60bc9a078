import { Button } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { documentQuery } from '../../api/queries';
import { useApi } from '../../auth/AuthContext';
import { ImportDialog } from './ImportDialog';

interface Props {
  workspaceId: string;
  /** The document open beside the tree, offered as the place to import under. */
  currentId: string | null;
  disabled: boolean;
  describedBy?: string;
}

/** The sidebar's "Import" button and its dialog (kept while the workspace is shown, so a running job is not lost). */
export function ImportButton({ workspaceId, currentId, disabled, describedBy }: Props) {
  const api = useApi();
  const [opened, setOpened] = useState(false);
  const current = useQuery({ ...documentQuery(api, currentId ?? ''), enabled: opened && currentId !== null });
  const place = currentId && current.data ? { id: currentId, title: current.data.title } : null;
  return (
    <>
      <Button
        variant="subtle"
        fullWidth
        disabled={disabled}
        aria-describedby={describedBy}
        onClick={() => setOpened(true)}
      >
        Import
      </Button>
      <ImportDialog workspaceId={workspaceId} current={place} opened={opened} onClose={() => setOpened(false)} />
    </>
  );
}
