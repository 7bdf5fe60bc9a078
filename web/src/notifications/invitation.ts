import type { ApiClient } from '../api/client';
import type { WorkspaceInvitation } from '../api/types';

/**
 * Accepts or declines the invitation a notification names. The API answers invitations by their
 * token (the e-mailed link), and a notification carries only the invitation's id: the invitee's own
 * pending invitations (GET /users/me/invitations) hold both.
 */
export async function answerInvitation(
  api: ApiClient,
  invitationId: string,
  answer: 'accept' | 'decline',
): Promise<WorkspaceInvitation> {
  const pending = await api.get<WorkspaceInvitation[]>('/users/me/invitations');
  const invitation = pending.find((i) => i.id === invitationId);
  if (!invitation) throw new Error('This invitation is no longer open: it was answered, cancelled or has expired.');
  await api.post(`/invitations/${encodeURIComponent(invitation.token)}/${answer}`);
  return invitation;
}
