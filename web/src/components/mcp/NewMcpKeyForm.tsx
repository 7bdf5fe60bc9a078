import { Button, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { mcpKeyKeys } from '../../api/queries';
import type { CreatedMcpKey } from '../../api/types';
import { useApi } from '../../auth/AuthContext';

interface Props {
  onCreated: (key: CreatedMcpKey) => void;
  onCancel: () => void;
}

/** Names a new key (POST /users/me/mcp-keys); the answer is the only time the key is seen. */
export function NewMcpKeyForm({ onCreated, onCancel }: Props) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');

  const create = useMutation({
    mutationFn: () => api.post<CreatedMcpKey>('/users/me/mcp-keys', { name: name.trim() }),
    onSuccess: async (created) => {
      onCreated(created);
      await queryClient.invalidateQueries({ queryKey: mcpKeyKeys.list });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim()) create.mutate();
  };

  return (
    <form onSubmit={submit} className="stack-form inline-panel" aria-label="New MCP key">
      <TextInput
        label="Key name"
        description="Which assistant or machine uses it, e.g. “Laptop assistant”"
        required
        maxLength={100}
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
        data-autofocus
        autoFocus
      />
      {create.error && (
        <p role="alert" className="error-text">
          {create.error.message}
        </p>
      )}
      <div className="form-actions">
        <Button type="submit" loading={create.isPending}>
          Create key
        </Button>
        <Button type="button" variant="default" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
