import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { webhookKeys } from '../../api/queries';
import type { Webhook } from '../../api/types';
import { useApi } from '../../auth/AuthContext';
import { ConfirmDialog } from '../ConfirmDialog';
import { WebhookDeliveries } from './WebhookDeliveries';
import { webhookTimeFormat } from './webhook-time';

/** One webhook: its facts, an Enabled switch, Delete (after asking) and its deliveries on demand. */
export function WebhookItem({
  workspaceId,
  webhook,
  onSaid,
}: {
  workspaceId: string;
  webhook: Webhook;
  onSaid: (message: string) => void;
}) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [showDeliveries, setShowDeliveries] = useState(false);
  const deliveriesId = useId();
  const refresh = () => queryClient.invalidateQueries({ queryKey: webhookKeys.list(workspaceId) });

  const toggle = useMutation({
    mutationFn: (enabled: boolean) => api.put<Webhook>(`/webhooks/${webhook.id}`, { enabled }),
    onSuccess: async (changed) => {
      onSaid(`The webhook to ${changed.url} is ${changed.enabled ? 'on' : 'off'}.`);
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => api.delete(`/webhooks/${webhook.id}`),
    onSuccess: async () => {
      setConfirming(false);
      onSaid(`The webhook to ${webhook.url} is deleted.`);
      queryClient.removeQueries({ queryKey: webhookKeys.deliveries(webhook.id) });
      await refresh();
    },
  });

  return (
    <li className="webhook-item">
      <p className="webhook-url">{webhook.url}</p>
      <dl className="facts">
        <dt>Events</dt>
        <dd>{webhook.events.join(', ')}</dd>
        <dt>State</dt>
        <dd>{webhook.enabled ? 'Enabled' : 'Disabled: nothing is sent'}</dd>
        <dt>Created</dt>
        <dd>{webhookTimeFormat.format(new Date(webhook.createdAt))}</dd>
      </dl>
      <div className="form-actions">
        <label className="switch">
          <input
            type="checkbox"
            role="switch"
            aria-checked={webhook.enabled}
            aria-label={`Enabled: ${webhook.url}`}
            checked={webhook.enabled}
            disabled={toggle.isPending}
            onChange={(event) => toggle.mutate(event.currentTarget.checked)}
          />
          Enabled
        </label>
        <button
          type="button"
          aria-expanded={showDeliveries}
          aria-controls={deliveriesId}
          aria-label={`Deliveries to ${webhook.url}`}
          onClick={() => setShowDeliveries((shown) => !shown)}
        >
          Deliveries
        </button>
        <button type="button" aria-label={`Delete the webhook to ${webhook.url}`} onClick={() => setConfirming(true)}>
          Delete
        </button>
      </div>
      {toggle.error && (
        <p role="alert" className="error-text">
          {toggle.error.message}
        </p>
      )}
      <div id={deliveriesId}>{showDeliveries && <WebhookDeliveries webhook={webhook} />}</div>
      <ConfirmDialog
        opened={confirming}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        busy={remove.isPending}
        error={remove.error?.message}
        onConfirm={() => remove.mutate()}
        onCancel={() => {
          setConfirming(false);
          remove.reset();
        }}
      >
        <p>Nothing more is sent to {webhook.url}, and its delivery log goes with it. This cannot be undone.</p>
      </ConfirmDialog>
    </li>
  );
}
