import { z } from '@wiki/db';
import type { ServiceClient } from './service-client.js';

/** A user as the workspace service describes them to other services. */
export interface RemoteUser {
  id: string;
  idpUid: string | null;
  email: string | null;
  name: string;
  avatarUrl: string | null;
}

const answer = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullish(),
  avatarUrl: z.string().nullish(),
  idpUid: z.string().nullish(),
});

/**
 * The workspace service's `GET /internal/users/:idOrIdpUid`: the read-through behind the users
 * projections, for a user whose user.upserted event has not arrived (or never will, e.g. after a
 * stream reset). Null for a user it does not know; a 503 when it cannot be asked.
 */
export async function fetchWorkspaceUser(
  client: ServiceClient,
  idOrIdpUid: string,
  requestId?: string,
): Promise<RemoteUser | null> {
  return client.get('workspace', `/internal/users/${encodeURIComponent(idOrIdpUid)}`, {
    requestId,
    parse: (data) => {
      const user = answer.parse(data);
      return {
        id: user.id,
        idpUid: user.idpUid ?? null,
        email: user.email ?? null,
        name: user.name,
        avatarUrl: user.avatarUrl ?? null,
      };
    },
  });
}

/** A user's address as the workspace service holds it now, and whether their provider vouched for it. */
export interface Mailbox {
  email: string;
  emailVerified: boolean;
  name: string;
}

const mailboxAnswer = z.object({ email: z.string(), emailVerified: z.boolean(), name: z.string() });

/** The user's current address (for e-mail); null for a user the workspace service does not know. */
export function fetchUserMailbox(client: ServiceClient, userId: string): Promise<Mailbox | null> {
  return client.get('workspace', `/internal/users/${encodeURIComponent(userId)}`, {
    parse: (data) => mailboxAnswer.parse(data),
  });
}

/** An open invitation with its link, as the workspace service describes it for e-mail. */
export interface InvitationLink {
  invitationId: string;
  workspaceId: string;
  workspaceName: string;
  email: string;
  role: string;
  message: string | null;
  inviterName: string | null;
  expiresAt: string;
  link: string;
}

const invitationLinkAnswer = z.object({
  invitationId: z.string(),
  workspaceId: z.string(),
  workspaceName: z.string(),
  email: z.string(),
  role: z.string(),
  message: z.string().nullable(),
  inviterName: z.string().nullable(),
  expiresAt: z.string(),
  link: z.string(),
});

/**
 * The workspace service's `GET /internal/invitations/:id/link` (events never carry the token):
 * null unless the invitation is still open.
 */
export function fetchInvitationLink(client: ServiceClient, invitationId: string): Promise<InvitationLink | null> {
  return client.get('workspace', `/internal/invitations/${encodeURIComponent(invitationId)}/link`, {
    parse: (data) => invitationLinkAnswer.parse(data),
  });
}
