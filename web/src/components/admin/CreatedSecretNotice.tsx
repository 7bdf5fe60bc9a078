import type { CreatedWebhook } from '../../api/types';
import { ShownOnceNotice } from '../ShownOnceNotice';

/** The new webhook's signing secret, this once: the API never answers it again. */
export function CreatedSecretNotice({ created, onDone }: { created: CreatedWebhook; onDone: () => void }) {
  return (
    <ShownOnceNotice
      id="created-webhook-heading"
      heading={<>Webhook added for {created.url}</>}
      warning={
        <>
          <strong>Copy the signing secret now: it will not be shown again.</strong> Your receiver needs it to check the
          Wiki-Signature header of each request. If it is lost, delete the webhook and add a new one.
        </>
      }
      label="Signing secret"
      value={created.secret}
      copyLabel="Copy the signing secret"
      onDone={onDone}
    />
  );
}
