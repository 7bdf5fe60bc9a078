import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { notificationKeys, workspaceKeys } from '../api/queries';
import type { AppNotification } from '../api/types';
import { useApi } from '../auth/AuthContext';
import { answerInvitation } from '../notifications/invitation';

interface Props {
  notification: AppNotification;
  invitationId: string;
}

/** Accept or Decline an invitation right in its notification. */
export function InvitationActions({ notification, invitationId }: Props) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [answered, setAnswered] = useState<{ answer: 'accept' | 'decline'; workspaceId: string; name: string } | null>(
    null,
  );
  const workspaceName = notification.workspace?.name ?? 'the workspace';

  const answer = async (choice: 'accept' | 'decline') => {
    setBusy(true);
    setError(null);
    try {
      const invitation = await answerInvitation(api, invitationId, choice);
      setAnswered({ answer: choice, workspaceId: invitation.workspace.id, name: invitation.workspace.name });
      // The notification service marks the invitation's notification actioned on its own.
      void queryClient.invalidateQueries({ queryKey: workspaceKeys.all });
      void queryClient.invalidateQueries({ queryKey: notificationKeys.all });
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  // Answered here: the answer stays in view (the refreshed notification is no longer actionable).
  if (answered) {
    return (
      <p role="status" className="invitation-answer">
        {answered.answer === 'accept' ? (
          <>
            You joined “{answered.name}”. <Link to={`/w/${answered.workspaceId}`}>Open {answered.name}</Link>
          </>
        ) : (
          <>You declined the invitation to “{answered.name}”.</>
        )}
      </p>
    );
  }
  if (!notification.actionable) return null;
  return (
    <div className="invitation-actions">
      <button
        type="button"
        disabled={busy}
        onClick={() => void answer('accept')}
        aria-label={`Accept the invitation to ${workspaceName}`}
      >
        Accept
      </button>
      <button
        type="button"
        disabled={busy}
        onClick={() => void answer('decline')}
        aria-label={`Decline the invitation to ${workspaceName}`}
      >
        Decline
      </button>
      {error && <p role="alert">{error}</p>}
    </div>
  );
}
