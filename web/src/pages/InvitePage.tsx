import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../api/client';
import { invitationInfoQuery } from '../api/queries';
import { useApi, useAuth } from '../auth/AuthContext';
import { InvitationAnswer } from '../components/invite/InvitationAnswer';
import { ROLE_HINT, ROLE_LABEL } from '../members/rules';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'long' });

/** Why an invitation cannot be answered, in words (the public preview's 404 and 410s). */
function closedReason(error: Error): { title: string; text: string } | null {
  if (!(error instanceof ApiError)) return null;
  if (error.status === 404)
    return {
      title: 'Invitation not found',
      text: 'This link does not lead to an invitation. Check that it was copied whole, or ask for a new one.',
    };
  if (error.reason === 'INVITATION_EXPIRED')
    return { title: 'This invitation has expired', text: 'Ask whoever invited you to send it again.' };
  if (error.status === 410)
    return {
      title: 'This invitation is no longer open',
      text: `${error.message}. It was already answered or cancelled; ask for a new one if you still want to join.`,
    };
  return null;
}

/** Whether a token is at hand; `null` while that is being found out. */
function useSignedIn(): boolean | null {
  const { session } = useAuth();
  const [signedIn, setSignedIn] = useState<boolean | null>(null);
  useEffect(() => {
    let live = true;
    const check = () => session.accessToken().then((token) => live && setSignedIn(token !== null));
    check();
    const unsubscribe = session.onChange(check);
    return () => {
      live = false;
      unsubscribe();
    };
  }, [session]);
  return signedIn;
}

/**
 * `/invite/<token>`: the invitation as anyone may preview it (workspace, inviter, role), then
 * Accept / Decline when signed in, or "Sign in to accept", which comes back here.
 */
export function InvitePage() {
  const { token = '' } = useParams();
  const api = useApi();
  const { session } = useAuth();
  const signedIn = useSignedIn();
  const info = useQuery(invitationInfoQuery(api, token));

  if (info.error) {
    const closed = closedReason(info.error);
    return (
      <main className="centered-page">
        <h1>{closed?.title ?? 'The invitation could not be loaded'}</h1>
        {closed ? <p>{closed.text}</p> : <p role="alert">{info.error.message}</p>}
        <Link to="/">Go to your wiki</Link>
      </main>
    );
  }
  if (!info.data || signedIn === null) return <p className="loading">Loading the invitation…</p>;

  const invitation = info.data;
  const inviter = invitation.invitedBy?.name || 'Someone';
  return (
    <main className="centered-page invite-page">
      <h1>
        Join {invitation.workspace.icon && <span aria-hidden="true">{invitation.workspace.icon} </span>}
        {invitation.workspace.name}
      </h1>
      <p>
        {inviter} invited <strong>{invitation.email}</strong> to the workspace “{invitation.workspace.name}” as{' '}
        <strong>{ROLE_LABEL[invitation.role]}</strong> ({ROLE_HINT[invitation.role]}).
      </p>
      {invitation.message && (
        <figure className="invite-message">
          <blockquote>{invitation.message}</blockquote>
          <figcaption>— {inviter}</figcaption>
        </figure>
      )}
      <p className="hint">The invitation is open until {dateFormat.format(new Date(invitation.expiresAt))}.</p>
      {signedIn ? (
        <InvitationAnswer invitation={invitation} />
      ) : (
        <div className="stack-form">
          <p>Sign in as {invitation.email} to answer it.</p>
          <div>
            <button
              type="button"
              className="primary-button"
              onClick={() => void session.signIn(`/invite/${encodeURIComponent(token)}`)}
            >
              Sign in to accept
            </button>
          </div>
        </div>
      )}
    </main>
  );
}
