import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { WEBHOOK_DELIVERIES_SHOWN, webhookDeliveriesQuery, webhookKeys } from '../../api/queries';
import type { Page, Webhook, WebhookDelivery, WebhookDeliveryStatus } from '../../api/types';
import { useApi } from '../../auth/AuthContext';
import { awaitsOutcome, FOLLOW_MS, type Followed } from './redelivery-follow';
import { webhookTimeFormat } from './webhook-time';

/** How often the log is read again while a delivery in it is still being sent. */
const PENDING_POLL_MS = 2_000;

const STATUS_LABEL: Record<WebhookDeliveryStatus, string> = {
  pending: 'Pending',
  delivered: 'Delivered',
  failed: 'Failed',
};

/** The webhook's latest deliveries, newest first; a failed one can be sent again. */
export function WebhookDeliveries({ webhook }: { webhook: Webhook }) {
  const api = useApi();
  const headingId = useId();
  // Redeliveries are followed by their attempt count, not only by a pending status: a read that
  // set out before the redelivery was committed can answer the old 'failed' after it.
  const [followed, setFollowed] = useState<ReadonlyMap<string, Followed>>(new Map());
  const deliveries = useQuery({
    ...webhookDeliveriesQuery(api, webhook.id),
    refetchInterval: (query) =>
      query.state.data?.content.some((delivery) => delivery.status === 'pending') ||
      awaitsOutcome(query.state.data, followed)
        ? PENDING_POLL_MS
        : false,
  });
  useEffect(() => {
    if (followed.size > 0 && !awaitsOutcome(deliveries.data, followed)) setFollowed(new Map());
  }, [deliveries.data, followed]);
  const follow = (reopened: WebhookDelivery) =>
    setFollowed((current) =>
      new Map(current).set(reopened.id, { attempts: reopened.attempts, until: Date.now() + FOLLOW_MS }),
    );

  return (
    <div className="webhook-deliveries">
      <h4 id={headingId}>Latest deliveries to {webhook.url}</h4>
      {deliveries.error && <p role="alert">{deliveries.error.message}</p>}
      {deliveries.isPending && <p>Loading deliveries…</p>}
      {deliveries.data?.content.length === 0 && (
        <p className="hint">Nothing sent yet: deliveries appear here once an event its filter takes happens.</p>
      )}
      {deliveries.data && deliveries.data.content.length > 0 && (
        <table className="settings-table" aria-labelledby={headingId}>
          {deliveries.data.totalElements > WEBHOOK_DELIVERIES_SHOWN && (
            <caption className="hint">
              The {WEBHOOK_DELIVERIES_SHOWN} newest of {deliveries.data.totalElements}
            </caption>
          )}
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Response</th>
              <th scope="col">Duration</th>
              <th scope="col">Time</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data.content.map((delivery) => (
              <DeliveryRow key={delivery.id} webhookId={webhook.id} delivery={delivery} onRedelivered={follow} />
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function DeliveryRow({
  webhookId,
  delivery,
  onRedelivered,
}: {
  webhookId: string;
  delivery: WebhookDelivery;
  onRedelivered: (reopened: WebhookDelivery) => void;
}) {
  const api = useApi();
  const queryClient = useQueryClient();
  const redeliver = useMutation({
    mutationFn: () => api.post<WebhookDelivery>(`/webhooks/${webhookId}/deliveries/${delivery.id}/redeliver`),
    // The answer (a new round, pending) goes into the list at once, and the list follows the round
    // until its attempt shows, even when a refetch already on its way answers the state from before it.
    onSuccess: (reopened) => {
      onRedelivered(reopened);
      queryClient.setQueryData<Page<WebhookDelivery>>(
        webhookKeys.deliveries(webhookId),
        (list) => list && { ...list, content: list.content.map((d) => (d.id === reopened.id ? reopened : d)) },
      );
      return queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(webhookId) });
    },
  });
  const time = webhookTimeFormat.format(new Date(delivery.deliveredAt ?? delivery.createdAt));

  return (
    <tr>
      <td>{delivery.event}</td>
      <td>
        {STATUS_LABEL[delivery.status]}
        {delivery.attempts > 1 && ` (${delivery.attempts} attempts)`}
      </td>
      <td>{delivery.responseStatus ?? '—'}</td>
      <td>{delivery.durationMs === null ? '—' : `${delivery.durationMs} ms`}</td>
      <td>{time}</td>
      <td>
        {delivery.status === 'failed' && (
          <button
            type="button"
            aria-label={`Redeliver ${delivery.event} of ${time}`}
            disabled={redeliver.isPending}
            onClick={() => redeliver.mutate()}
          >
            Redeliver
          </button>
        )}
        {redeliver.error && (
          <span role="alert" className="reason">
            {redeliver.error.message}
          </span>
        )}
      </td>
    </tr>
  );
}
