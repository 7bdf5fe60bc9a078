import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { mcpKeyKeys, mcpKeysQuery } from '../../api/queries';
import type { CreatedMcpKey, McpKey } from '../../api/types';
import { useApi } from '../../auth/AuthContext';
import { ConfirmDialog } from '../ConfirmDialog';
import { CreatedKeyNotice } from './CreatedKeyNotice';
import { McpKeyRow } from './McpKeyRow';
import { NewMcpKeyForm } from './NewMcpKeyForm';

/** The person's MCP keys (ARCHITECTURE 5.3): list, "New MCP key" (shown once), delete. */
export function McpKeysSection() {
  const api = useApi();
  const queryClient = useQueryClient();
  const keys = useQuery(mcpKeysQuery(api));
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedMcpKey | null>(null);
  const [deleting, setDeleting] = useState<McpKey | null>(null);
  const [said, setSaid] = useState('');
  const newKeyButton = useRef<HTMLButtonElement>(null);

  const remove = useMutation({
    mutationFn: (key: McpKey) => api.delete(`/users/me/mcp-keys/${key.id}`),
    onSuccess: async (_, key) => {
      setDeleting(null);
      setSaid(`The key “${key.name}” is deleted.`);
      if (created?.id === key.id) setCreated(null);
      await queryClient.invalidateQueries({ queryKey: mcpKeyKeys.list });
    },
  });

  return (
    <section aria-labelledby="mcp-keys-heading">
      <h2 id="mcp-keys-heading">MCP keys</h2>
      <p className="hint">
        A key lets an AI assistant use this wiki as you (see “How to connect an assistant” below). Delete a key to stop
        it.
      </p>
      {keys.error && <p role="alert">{keys.error.message}</p>}
      {keys.isPending && <p>Loading your keys…</p>}
      {keys.data?.length === 0 && !created && (
        <p className="empty-state">You have no MCP keys yet. Choose “New MCP key” to make one.</p>
      )}
      {keys.data && keys.data.length > 0 && (
        <table className="settings-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Starts with</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.data.map((key) => (
              <McpKeyRow
                key={key.id}
                mcpKey={key}
                onDelete={(target) => {
                  remove.reset();
                  setDeleting(target);
                }}
              />
            ))}
          </tbody>
        </table>
      )}
      <p role="status" className="quiet">
        {said}
      </p>
      {created && (
        <CreatedKeyNotice
          created={created}
          onDone={() => {
            setCreated(null);
            newKeyButton.current?.focus();
          }}
        />
      )}
      {creating ? (
        <NewMcpKeyForm
          onCreated={(key) => {
            setCreating(false);
            setSaid('');
            setCreated(key);
          }}
          onCancel={() => setCreating(false)}
        />
      ) : (
        <button
          ref={newKeyButton}
          type="button"
          onClick={() => {
            setCreated(null);
            setCreating(true);
          }}
        >
          New MCP key
        </button>
      )}
      <ConfirmDialog
        opened={deleting !== null}
        title={`Delete the key “${deleting?.name ?? ''}”?`}
        confirmLabel="Delete key"
        busy={remove.isPending}
        error={remove.error?.message}
        onConfirm={() => deleting && remove.mutate(deleting)}
        onCancel={() => setDeleting(null)}
      >
        <p>Assistants using it stop working within seconds. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
