import type { InvitationView } from '../db/invitations.js';
import { effectiveStatus, inviteLink } from '../domain/invitations.js';

/** WorkspaceInvitationResponse of the spec. */
export function presentInvitation(view: InvitationView, now = new Date()) {
  return {
    id: view.id,
    email: view.email,
    role: view.role,
    status: effectiveStatus(view, now),
    message: view.message,
    token: view.token,
    invitedBy: view.invitedBy ? { id: view.invitedBy, name: view.inviterName, avatar: view.inviterAvatar } : null,
    invitedAt: view.invitedAt,
    expiresAt: view.expiresAt,
    workspace: { id: view.workspaceId, name: view.workspaceName, icon: view.workspaceIcon },
  };
}

/** InvitationResultResponse of the spec. */
export function presentInvitationResult(view: InvitationView, inviteUrl: string) {
  return {
    invitationId: view.id,
    email: view.email,
    role: view.role,
    expiresAt: view.expiresAt,
    inviteLink: inviteLink(inviteUrl, view.token),
  };
}

/** What the notification service e-mails for an open invitation (internal route). */
export function presentInvitationLink({ invitation, link }: { invitation: InvitationView; link: string }) {
  return {
    invitationId: invitation.id,
    workspaceId: invitation.workspaceId,
    workspaceName: invitation.workspaceName,
    email: invitation.email,
    role: invitation.role,
    message: invitation.message,
    inviterName: invitation.inviterName,
    expiresAt: invitation.expiresAt,
    link,
  };
}
