import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { webhooksQuery } from '../../api/queries';
import type { CreatedWebhook } from '../../api/types';
import { useApi } from '../../auth/AuthContext';
import { type Party, whyNotManageWebhooks } from '../../members/rules';
import { CreatedSecretNotice } from './CreatedSecretNotice';
import { WebhookForm } from './WebhookForm';
import { WebhookItem } from './WebhookItem';

/** The workspace's webhooks (ARCHITECTURE 5.18) for its ADMINs and OWNER; others read why not. */
export function WebhooksSection({ workspaceId, actor }: { workspaceId: string; actor: Party }) {
  const api = useApi();
  const reason = whyNotManageWebhooks(actor);
  const webhooks = useQuery({ ...webhooksQuery(api, workspaceId), enabled: reason === null });
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [said, setSaid] = useState('');

  return (
    <section aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      {reason ? (
        <p className="hint">{reason}</p>
      ) : (
        <>
          <p className="hint">
            Each event of this workspace that a webhook’s filter takes is sent to its URL as a signed JSON POST (header
            Wiki-Signature). A webhook whose receiver keeps failing for days (three by default) is turned off.
          </p>
          {created ? (
            <CreatedSecretNotice created={created} onDone={() => setCreated(null)} />
          ) : (
            <WebhookForm workspaceId={workspaceId} onCreated={setCreated} />
          )}
          <h3>Webhooks of this workspace</h3>
          {webhooks.error && <p role="alert">{webhooks.error.message}</p>}
          {webhooks.isPending && <p>Loading webhooks…</p>}
          {webhooks.data?.length === 0 && <p className="hint">No webhook yet. Add one with the form above.</p>}
          {webhooks.data && webhooks.data.length > 0 && (
            <ul className="webhook-list">
              {webhooks.data.map((webhook) => (
                <WebhookItem key={webhook.id} workspaceId={workspaceId} webhook={webhook} onSaid={setSaid} />
              ))}
            </ul>
          )}
          <p role="status" className="quiet">
            {said}
          </p>
        </>
      )}
    </section>
  );
}
