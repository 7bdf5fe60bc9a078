import type { DatabasePool, DatabaseTransactionConnection } from '@wiki/db';
import { type EventBus, type EventFor, type Logger, startConsumer } from '@wiki/events';
import type { ServiceClient } from '@wiki/service-client';
import {
  deleteDocumentTitles,
  deleteWorkspaceName,
  upsertDocumentTitle,
  upsertWorkspaceName,
  userIdByEmail,
  workspaceName,
} from '../db/names.js';
import {
  actionInvitation,
  deleteOfDocuments,
  deleteOfWorkspace,
  insertNotification,
  refreshInvitation,
  removeInvitation,
} from '../db/notifications.js';
import { actorOf, isMember, titleOf } from '../db/people.js';
import { savePreference, wantsNotifications } from '../db/preferences.js';
import { type NewNotification, type NotificationType, wording } from '../domain/notification.js';
import { notifyAfterCommit, touch } from '../live/after-commit.js';
import { kickAfterCommit } from '../mail/after-commit.js';
import { planInvitationMail } from '../mail/plan.js';
import { applyWatchEvent, type WatchDeps } from './watch-events.js';

/**
 * One consumer for the names it shows and the notifications it makes: the stream's order then
 * puts a workspace's or document's name in place before the events that show it.
 */
const TYPES = [
  'user.preferences_changed',
  'workspace.created',
  'workspace.updated',
  'workspace.deleted',
  'document.*',
  'comment.added',
  'comment.edited',
  'comment.thread_resolved',
  'invitation.*',
  'member.role_changed',
  'member.removed',
  'job.finished',
] as const;
export type ProducerEvent = EventFor<(typeof TYPES)[number]>;

export interface ProducerDeps extends WatchDeps {
  /** The workspace service, for members and users the projections do not hold yet. */
  peers: ServiceClient;
  logger: Logger;
}

interface Recipients {
  type: NotificationType;
  userIds: readonly string[];
  /** Only current members of the workspace get it (comment notifications). */
  membersOnly: boolean;
  fields: Omit<NewNotification, 'userId' | 'type' | 'title' | 'message' | 'sourceKey' | 'actorId' | 'workspaceId'>;
  role?: string;
  /** Told although they caused it (their own job finished). */
  includeActor?: boolean;
  job?: { kind: 'import' | 'export'; status: 'done' | 'failed' };
}

export async function applyProducerEvent(event: ProducerEvent, tx: DatabaseTransactionConnection, deps: ProducerDeps) {
  const at = event.occurredAt;
  await applyWatchEvent(event, tx, deps);
  switch (event.type) {
    case 'user.preferences_changed':
      return savePreference(tx, event.data, at);
    case 'workspace.created':
    case 'workspace.updated':
      return upsertWorkspaceName(tx, event.data.id, event.data.name, at);
    case 'workspace.deleted':
      // Deleting a workspace removes all its data (spec 3): its notifications and its name here.
      touch(tx, await deleteOfWorkspace(tx, event.data.id));
      return deleteWorkspaceName(tx, event.data.id);
    case 'document.deleted':
      // What a notification points at is gone: so is the notification (ARCHITECTURE 4).
      touch(tx, await deleteOfDocuments(tx, event.data.ids));
      return deleteDocumentTitles(tx, event.data.ids);
    case 'document.created':
    case 'document.updated':
    case 'document.moved':
    case 'document.archived':
    case 'document.restored':
    case 'document.published':
    case 'document.unpublished':
      return upsertDocumentTitle(tx, event.data.id, event.data.title, at, event.data.workspaceId);
    case 'comment.added': {
      const d = event.data;
      const mentioned = new Set(d.mentions.filter((id) => id !== d.authorId));
      const common = { documentId: d.documentId, commentThreadId: d.threadId, metadata: { commentId: d.commentId } };
      await produce(event, tx, deps, {
        type: 'COMMENT_MENTION',
        userIds: [...mentioned],
        membersOnly: true,
        fields: common,
      });
      // A participant who is also mentioned is told once, by the mention.
      await produce(event, tx, deps, {
        type: 'COMMENT_REPLY',
        userIds: d.participants.filter((id) => id !== d.authorId && !mentioned.has(id)),
        membersOnly: true,
        fields: common,
      });
      return;
    }
    case 'comment.edited': {
      const d = event.data;
      return produce(event, tx, deps, {
        type: 'COMMENT_MENTION',
        userIds: (d.newMentions ?? []).filter((id) => id !== d.authorId),
        membersOnly: true,
        fields: { documentId: d.documentId, commentThreadId: d.threadId, metadata: { commentId: d.commentId } },
      });
    }
    case 'comment.thread_resolved': {
      const d = event.data;
      const resolver = d.resolvedBy ?? event.actorId;
      return produce(event, tx, deps, {
        type: 'THREAD_RESOLVED',
        userIds: d.participants.filter((id) => id !== resolver),
        membersOnly: true,
        fields: { documentId: d.documentId, commentThreadId: d.threadId },
      });
    }
    case 'invitation.created': {
      const d = event.data;
      const invitee = d.inviteeUserId ?? (await userIdByEmail(tx, d.email));
      // E-mailed to its address even when nobody has signed in with it yet.
      await planInvitationMail(tx, {
        eventId: event.id,
        invitationId: d.invitationId,
        email: d.email,
        inviteeUserId: invitee,
      });
      if (!invitee) return; // no notification: nobody has signed in with that email yet
      if (d.resent) touch(tx, await refreshInvitation(tx, d.invitationId, d.expiresAt));
      return produce(event, tx, deps, {
        type: 'WORKSPACE_INVITATION',
        userIds: [invitee],
        membersOnly: false,
        fields: { actionable: true, invitationId: d.invitationId, expiresAt: d.expiresAt, metadata: { role: d.role } },
        role: d.role,
      });
    }
    case 'invitation.accepted': {
      const d = event.data;
      touch(tx, await actionInvitation(tx, d.invitationId));
      if (!d.invitedBy) return;
      return produce(event, tx, deps, {
        type: 'INVITATION_ACCEPTED',
        userIds: [d.invitedBy],
        membersOnly: false,
        fields: { invitationId: d.invitationId, metadata: { role: d.role } },
      });
    }
    case 'invitation.declined':
      return touch(tx, await actionInvitation(tx, event.data.invitationId));
    case 'invitation.cancelled':
      return touch(tx, await removeInvitation(tx, event.data.invitationId));
    case 'member.role_changed':
      return produce(event, tx, deps, {
        type: 'MEMBER_ROLE_CHANGED',
        userIds: [event.data.userId],
        membersOnly: false,
        fields: { metadata: { role: event.data.role } },
        role: event.data.role,
      });
    case 'member.removed':
      return produce(event, tx, deps, {
        type: 'MEMBER_REMOVED',
        userIds: [event.data.userId],
        membersOnly: false,
        fields: {},
      });
    case 'job.finished': {
      const d = event.data;
      // The owner's own job: told although they started it, so the stream carries it.
      return produce(event, tx, deps, {
        type: 'JOB_FINISHED',
        userIds: [d.ownerId],
        membersOnly: false,
        includeActor: true,
        fields: { documentId: d.documentId ?? null, metadata: { jobId: d.id, kind: d.kind, status: d.status } },
        job: { kind: d.kind, status: d.status },
      });
    }
  }
}

async function produce(event: ProducerEvent, tx: DatabaseTransactionConnection, deps: ProducerDeps, r: Recipients) {
  const workspaceId = event.workspaceId ?? ('workspaceId' in event.data ? event.data.workspaceId : null);
  const actorId = event.actorId;
  // Nobody is told of what they did themselves.
  const candidates = [...new Set(r.userIds)].filter((id) => r.includeActor || id !== actorId);
  if (candidates.length === 0) return;
  const recipients: string[] = [];
  for (const userId of candidates) {
    if (r.membersOnly && (!workspaceId || !(await isMember(tx, deps.peers, workspaceId, userId)))) continue;
    if (!(await wantsNotifications(tx, userId))) continue;
    recipients.push(userId);
  }
  if (recipients.length === 0) return;
  const actor = actorId ? await actorOf(tx, deps.peers, actorId) : null;
  const names = {
    actorName: actor?.name ?? null,
    actorAvatar: actor?.avatarUrl ?? null,
    workspaceName: await workspaceName(tx, workspaceId),
    documentTitle: await titleOf(tx, deps.peers, r.fields.documentId ?? null),
  };
  const text = wording(
    r.type,
    {
      actorName: names.actorName ?? '',
      workspaceName: names.workspaceName ?? '',
      documentTitle: names.documentTitle ?? '',
    },
    { role: r.role, job: r.job },
  );
  // WORKSPACE_INVITATION is one per invitation (a resend refreshes it); the rest one per event.
  const sourceKey =
    r.type === 'WORKSPACE_INVITATION' && r.fields.invitationId ? `invitation:${r.fields.invitationId}` : event.id;
  // In one order (by id) in every transaction: each insert locks the user's stream counter until
  // the commit, and two transactions taking the same counters in opposite orders would deadlock.
  for (const userId of recipients.sort()) {
    const made = await insertNotification(
      tx,
      { ...r.fields, userId, type: r.type, ...text, actorId, workspaceId, sourceKey: `${r.type}:${sourceKey}` },
      names,
    );
    if (made) touch(tx, [userId]);
  }
}

export function startNotificationProducer(
  bus: EventBus,
  pool: DatabasePool,
  deps: ProducerDeps & { notify: (userIds: Iterable<string>) => void; kickMail: () => void },
) {
  return startConsumer({
    bus,
    // Streams are told of what a transaction made or changed once it has committed, and the
    // mail queue of the messages it wrote.
    pool: notifyAfterCommit(kickAfterCommit(pool, deps.kickMail), deps.notify),
    name: 'notification-producer',
    types: TYPES,
    handle: (event, tx) => applyProducerEvent(event, tx, deps),
    logger: deps.logger,
  });
}
