import { Button } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
import { workspaceKeys } from '../api/queries';
import type { Workspace } from '../api/types';
import { useApi } from '../auth/AuthContext';
import { WorkspaceFields, workspaceFieldsBody } from './WorkspaceFields';

/** Name and description of a new workspace (POST /workspaces); the person lands in it once made. */
export function NewWorkspaceForm({
  submitLabel = 'Create workspace',
  onCreated,
}: {
  submitLabel?: string;
  onCreated?: (workspace: Workspace) => void;
}) {
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [fields, setFields] = useState({ name: '', description: '' });

  const create = useMutation({
    mutationFn: () => api.post<Workspace>('/workspaces', workspaceFieldsBody(fields, undefined)),
    onSuccess: async (workspace) => {
      await queryClient.invalidateQueries({ queryKey: workspaceKeys.all });
      onCreated?.(workspace);
      navigate(`/w/${workspace.id}`);
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (fields.name.trim()) create.mutate();
  };

  return (
    <form onSubmit={submit} className="stack-form">
      <WorkspaceFields
        values={fields}
        onChange={setFields}
        namePlaceholder="e.g. Engineering handbook"
        descriptionPlaceholder="What the workspace is for (optional)"
        autoFocus
      />
      {create.error && (
        <p role="alert" className="error-text">
          {create.error.message}
        </p>
      )}
      <Button type="submit" loading={create.isPending}>
        {submitLabel}
      </Button>
    </form>
  );
}
