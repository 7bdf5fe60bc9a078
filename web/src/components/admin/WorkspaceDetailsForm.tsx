import { Button, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { workspaceKeys } from '../../api/queries';
import type { Workspace } from '../../api/types';
import { useApi } from '../../auth/AuthContext';
import { WorkspaceFields, workspaceFieldsBody } from '../WorkspaceFields';

/** Name, description and icon of the workspace (PUT /workspaces/{id}; ADMIN and OWNER). */
export function WorkspaceDetailsForm({ workspace }: { workspace: Workspace }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [fields, setFields] = useState({ name: workspace.name, description: workspace.description ?? '' });
  const [icon, setIcon] = useState(workspace.icon ?? '');

  const save = useMutation({
    mutationFn: () =>
      // An empty description is sent as '' here: it clears the stored one.
      api.put<Workspace>(`/workspaces/${workspace.id}`, { ...workspaceFieldsBody(fields, ''), icon: icon.trim() }),
    onSuccess: async (saved) => {
      queryClient.setQueryData(workspaceKeys.detail(saved.id), saved);
      await queryClient.invalidateQueries({ queryKey: workspaceKeys.all });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (fields.name.trim()) save.mutate();
  };

  return (
    <form onSubmit={submit} className="stack-form">
      <WorkspaceFields values={fields} onChange={setFields} descriptionPlaceholder="What the workspace is for" />
      <TextInput
        label="Icon"
        description="An emoji shown before the name, e.g. 📘 (leave empty for none)"
        maxLength={50}
        value={icon}
        onChange={(event) => setIcon(event.currentTarget.value)}
      />
      {save.error && (
        <p role="alert" className="error-text">
          {save.error.message}
        </p>
      )}
      <p role="status" className="quiet">
        {save.isSuccess && !save.isPending ? 'Saved.' : ''}
      </p>
      <div>
        <Button type="submit" loading={save.isPending}>
          Save changes
        </Button>
      </div>
    </form>
  );
}
