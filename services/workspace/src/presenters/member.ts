import type { MembershipState, MemberView } from '../db/members.js';

/** WorkspaceMemberResponse of the spec; `invitedBy` is null for members nobody invited (the creator). */
export function presentMember(view: MemberView) {
  return {
    id: view.id,
    userId: view.userId,
    userName: view.userName,
    userEmail: view.userEmail,
    userAvatar: view.userAvatar,
    role: view.role,
    status: view.status,
    invitedBy: view.invitedBy ? { id: view.invitedBy, name: view.inviterName, avatar: view.inviterAvatar } : null,
    invitedAt: view.invitedAt,
    acceptedAt: view.acceptedAt,
    createdAt: view.createdAt,
  };
}

/** MemberSearchResponse of the spec. */
export function presentMemberSearch(view: MemberView) {
  return { userId: view.userId, name: view.userName, email: view.userEmail, avatar: view.userAvatar, role: view.role };
}

/** The internal membership answer other services' projections fall back to. */
export function presentMembership(row: MembershipState) {
  return {
    workspaceId: row.workspaceId,
    userId: row.userId,
    memberId: row.id,
    role: row.role,
    workspaceArchived: row.workspaceArchived,
  };
}
