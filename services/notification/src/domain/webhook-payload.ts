import type { EventEnvelope, TypedEvent } from '@wiki/events';

/** The events a webhook hears (see webhook-events.ts), typed by their contracts. */
export type WebhookEvent = TypedEvent<
  | 'workspace.created'
  | 'workspace.updated'
  | 'workspace.deleted'
  | 'member.added'
  | 'member.role_changed'
  | 'member.removed'
  | 'invitation.created'
  | 'invitation.accepted'
  | 'invitation.declined'
  | 'invitation.cancelled'
  | 'document.created'
  | 'document.updated'
  | 'document.moved'
  | 'document.archived'
  | 'document.restored'
  | 'document.published'
  | 'document.unpublished'
  | 'document.deleted'
  | 'comment.thread_created'
  | 'comment.thread_resolved'
  | 'comment.thread_reopened'
  | 'comment.thread_deleted'
  | 'comment.added'
  | 'comment.edited'
  | 'comment.deleted'
  | 'attachment.uploaded'
  | 'attachment.deleted'
  | 'attachment.text_extracted'
>;

/** Longest title sent; longer ones are cut (titles are the only free text a body holds). */
export const TITLE_MAX = 500;
/** Most ids of a list sent (an event holds at most 1000; a body stays a few tens of KiB at most). */
export const IDS_MAX = 1000;

const title = (t: string) => (t.length > TITLE_MAX ? t.slice(0, TITLE_MAX) : t);
const idList = (ids: readonly string[]) =>
  ids.length > IDS_MAX ? { ids: ids.slice(0, IDS_MAX), idsTruncated: true } : { ids: [...ids] };

/**
 * What a webhook is told of an event: ids, titles, roles and states, never document content,
 * comment text, e-mail addresses or storage keys. Written out per event, so a field added to an
 * event's contract reaches no receiver until it is added here.
 */
export function webhookData(event: WebhookEvent): Record<string, unknown> {
  switch (event.type) {
    case 'workspace.created':
    case 'workspace.updated':
    case 'workspace.deleted': {
      const d = event.data;
      return { id: d.id, name: title(d.name), isArchived: d.isArchived };
    }
    case 'member.added':
    case 'member.role_changed':
    case 'member.removed':
      return { userId: event.data.userId, role: event.data.role };
    case 'invitation.created':
    case 'invitation.accepted':
    case 'invitation.declined':
    case 'invitation.cancelled': {
      const d = event.data;
      return { invitationId: d.invitationId, role: d.role, invitedBy: d.invitedBy, expiresAt: d.expiresAt };
    }
    case 'document.created':
    case 'document.published':
    case 'document.unpublished':
      return documentFields(event.data);
    case 'document.updated':
      return {
        ...documentFields(event.data),
        changed: event.data.changed,
        ...(event.data.revision ? { revision: event.data.revision } : {}),
      };
    case 'document.moved':
      return {
        ...documentFields(event.data),
        previousParentId: event.data.previousParentId,
        reason: event.data.reason,
      };
    case 'document.archived':
    case 'document.restored':
      return { ...documentFields(event.data), ...idList(event.data.ids) };
    case 'document.deleted':
      return { ...documentFields(event.data), ...idList(event.data.ids), cascade: event.data.cascade };
    case 'comment.thread_created':
    case 'comment.thread_resolved':
    case 'comment.thread_reopened':
    case 'comment.thread_deleted': {
      const d = event.data;
      return {
        threadId: d.threadId,
        documentId: d.documentId,
        status: d.status,
        createdBy: d.createdBy,
        resolvedBy: d.resolvedBy,
      };
    }
    case 'comment.added':
    case 'comment.edited':
    case 'comment.deleted': {
      const d = event.data;
      return { commentId: d.commentId, threadId: d.threadId, documentId: d.documentId, authorId: d.authorId };
    }
    case 'attachment.uploaded':
    case 'attachment.deleted':
      return { id: event.data.id, documentId: event.data.documentId };
    case 'attachment.text_extracted':
      return { id: event.data.id, documentId: event.data.documentId };
  }
}

function documentFields(d: {
  id: string;
  parentId: string | null;
  title: string;
  isArchived: boolean;
  isPublished: boolean;
  isTemplate: boolean;
  updatedAt: string;
}) {
  return {
    id: d.id,
    parentId: d.parentId,
    title: title(d.title),
    isArchived: d.isArchived,
    isPublished: d.isPublished,
    isTemplate: d.isTemplate,
    updatedAt: d.updatedAt,
  };
}

/** The document an event is about, for the order of one webhook's deliveries (null: no document). */
export function documentOf(event: WebhookEvent): string | null {
  if (event.type.startsWith('document.')) return (event.data as { id: string }).id;
  if ('documentId' in event.data) return event.data.documentId;
  return null;
}

/** The workspace an event belongs to: the envelope's, else its data's. */
export function workspaceOf(event: EventEnvelope): string | null {
  if (event.workspaceId) return event.workspaceId;
  const d = event.data as { workspaceId?: unknown };
  return typeof d.workspaceId === 'string' ? d.workspaceId : null;
}

/** The body: `{id (the event's), event, workspaceId, occurredAt, data}`, as sent, byte for byte. */
export function webhookBody(event: WebhookEvent, workspaceId: string): string {
  return JSON.stringify({
    id: event.id,
    event: event.type,
    workspaceId,
    occurredAt: event.occurredAt,
    data: webhookData(event),
  });
}
