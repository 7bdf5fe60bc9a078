import { Button, Textarea, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
import { workspaceKeys } from '../api/queries';
import type { Workspace } from '../api/types';
import { useApi } from '../auth/AuthContext';

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
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');

  const create = useMutation({
    mutationFn: () =>
      api.post<Workspace>('/workspaces', { name: name.trim(), description: description.trim() || undefined }),
    onSuccess: async (workspace) => {
      await queryClient.invalidateQueries({ queryKey: workspaceKeys.all });
      onCreated?.(workspace);
      navigate(`/w/${workspace.id}`);
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim()) create.mutate();
  };

  return (
    <form onSubmit={submit} className="stack-form">
      <TextInput
        label="Name"
        required
        maxLength={255}
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
        placeholder="e.g. Engineering handbook"
        data-autofocus
      />
      <Textarea
        label="Description"
        maxLength={1000}
        autosize
        minRows={2}
        value={description}
        onChange={(event) => setDescription(event.currentTarget.value)}
        placeholder="What the workspace is for (optional)"
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
