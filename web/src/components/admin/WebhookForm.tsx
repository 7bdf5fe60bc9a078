import { Button, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client';
import { webhookKeys } from '../../api/queries';
import type { CreatedWebhook } from '../../api/types';
import { useApi } from '../../auth/AuthContext';

/** "document.*, comment.added" → ["document.*", "comment.added"]; nothing typed means every event. */
export function eventFilters(text: string): string[] {
  const filters = text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  return filters.length > 0 ? filters : ['*'];
}

/** The refusal in words: a refused URL names its reason alone (the envelope's message starts with the field). */
function refusalText(error: Error): string {
  const details = error instanceof ApiError && Array.isArray(error.details) ? error.details : [];
  const url = details.find((detail) => detail?.field === 'url');
  if (url && typeof url.message === 'string') return `The webhook URL was refused: ${url.message}.`;
  return `The webhook was not added: ${error.message}`;
}

/** Adds a webhook (POST /workspaces/{id}/webhooks); the answer's secret goes to `onCreated`. */
export function WebhookForm({
  workspaceId,
  onCreated,
}: {
  workspaceId: string;
  onCreated: (created: CreatedWebhook) => void;
}) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('*');

  const create = useMutation({
    mutationFn: () =>
      api.post<CreatedWebhook>(`/workspaces/${workspaceId}/webhooks`, {
        url: url.trim(),
        events: eventFilters(events),
      }),
    onSuccess: async (created) => {
      setUrl('');
      setEvents('*');
      onCreated(created);
      await queryClient.invalidateQueries({ queryKey: webhookKeys.list(workspaceId) });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (url.trim()) create.mutate();
  };

  return (
    <form onSubmit={submit} className="stack-form webhook-form" aria-labelledby="new-webhook-heading">
      <h3 id="new-webhook-heading">Add a webhook</h3>
      <TextInput
        label="Webhook URL"
        description="http or https; it must reach a public address"
        type="url"
        required
        maxLength={2048}
        autoComplete="off"
        value={url}
        onChange={(event) => setUrl(event.currentTarget.value)}
        placeholder="https://example.com/wiki-events"
      />
      <TextInput
        label="Events"
        description="Comma-separated event types or groups, e.g. document.*, comment.added; * sends every event"
        maxLength={2000}
        autoComplete="off"
        value={events}
        onChange={(event) => setEvents(event.currentTarget.value)}
      />
      {create.error && (
        <p role="alert" className="error-text">
          {refusalText(create.error)}
        </p>
      )}
      <div>
        <Button type="submit" loading={create.isPending}>
          Add webhook
        </Button>
      </div>
    </form>
  );
}
