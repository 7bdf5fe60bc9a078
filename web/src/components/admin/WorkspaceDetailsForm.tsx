import { Button, Textarea, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { workspaceKeys } from '../../api/queries';
import type { Workspace } from '../../api/types';
import { useApi } from '../../auth/AuthContext';

/** Name, description and icon of the workspace (PUT /workspaces/{id}; ADMIN and OWNER). */
export function WorkspaceDetailsForm({ workspace }: { workspace: Workspace }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [name, setName] = useState(workspace.name);
  const [description, setDescription] = useState(workspace.description ?? '');
  const [icon, setIcon] = useState(workspace.icon ?? '');

  const save = useMutation({
    mutationFn: () =>
      api.put<Workspace>(`/workspaces/${workspace.id}`, {
        name: name.trim(),
        description: description.trim(),
        icon: icon.trim(),
      }),
    onSuccess: async (saved) => {
      queryClient.setQueryData(workspaceKeys.detail(saved.id), saved);
      await queryClient.invalidateQueries({ queryKey: workspaceKeys.all });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim()) save.mutate();
  };

  return (
    <form onSubmit={submit} className="stack-form">
      <TextInput
        label="Name"
        required
        maxLength={255}
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
      />
      <Textarea
        label="Description"
        maxLength={1000}
        autosize
        minRows={2}
        value={description}
        onChange={(event) => setDescription(event.currentTarget.value)}
        placeholder="What the workspace is for"
      />
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
