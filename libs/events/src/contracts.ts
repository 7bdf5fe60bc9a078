import { z } from '@wiki/db';
import type { EventEnvelope, NewEvent } from './envelope.js';
import { EMAIL_MODES, NOTIFICATION_TYPES } from './notification-types.js';

/**
 * The event catalog (ARCHITECTURE 4) as one zod schema per type: what each event's `data` holds.
 * Producers build payloads through `newEvent` (statically typed, not parsed: the outbox is on hot
 * paths); `startConsumer` parses every event whose type is listed here before its handler sees it,
 * and dead-letters one that does not fit. Fields nobody lists are dropped by the parse, so a
 * producer may add a field before its consumers know it; removing or changing one is a new contract.
 *
 * The catalog's "flags" of a document are its three booleans `isArchived`, `isPublished` and
 * `isTemplate` (the spec's "Document flags"), sent as fields of their own, not in an object.
 */

const id = z.string().uuid();
const ids = z.array(id);
/** ISO 8601 with a zone, as the database layer writes timestamps. */
const timestamp = z.string().datetime({ offset: true });
const nullableText = z.string().nullable();

export const ROLES = ['OWNER', 'ADMIN', 'EDITOR', 'COMMENTER', 'VIEWER'] as const;
/** An invitation never grants OWNER (ownership is transferred, not offered). */
export const INVITATION_ROLES = ['ADMIN', 'EDITOR', 'COMMENTER', 'VIEWER'] as const;

const userUpserted = z.object({
  id,
  idpUid: nullableText,
  email: z.string(),
  name: z.string(),
  avatarUrl: nullableText,
});

/** The workspace after the change (for deleted: as it was). */
const workspace = z.object({
  id,
  name: z.string(),
  icon: nullableText,
  isArchived: z.boolean(),
  ownerId: id,
});

/** The member after the change (for removed: the role they had). */
const member = z.object({
  workspaceId: id,
  userId: id,
  memberId: id,
  role: z.enum(ROLES),
});

const invitation = z.object({
  invitationId: id,
  workspaceId: id,
  email: z.string(),
  role: z.enum(INVITATION_ROLES),
  invitedBy: id.nullable(),
  expiresAt: timestamp,
  /** The invited email's user, when they have signed in before. */
  inviteeUserId: id.nullable(),
});

/**
 * An id list split over several events (the same change): `part` of `parts`, counted from 1.
 * Absent on events written before lists were split (read as 1 of 1).
 */
const idList = {
  part: z.number().int().min(1).default(1),
  parts: z.number().int().min(1).default(1),
};

/** What every document.* event tells about the document (for deleted: as it was before). */
const document = z.object({
  id,
  workspaceId: id,
  /** The document's creator (search's author filter); absent in events written before it was sent. */
  createdBy: id.optional(),
  parentId: id.nullable(),
  title: z.string(),
  icon: nullableText,
  isArchived: z.boolean(),
  isPublished: z.boolean(),
  isTemplate: z.boolean(),
  updatedAt: timestamp,
});

export const DOCUMENT_CHANGES = ['title', 'content', 'icon', 'coverImageUrl', 'lastEditedBy'] as const;
export type DocumentChange = (typeof DOCUMENT_CHANGES)[number];

/**
 * True when a thread has more participants than one event lists (EVENT_MAX_IDS, limits.ts): the
 * list keeps the first ones in order of arrival (the creator first). Absent when it is complete.
 */
const participantsTruncated = z.boolean().optional();

/** `status` is the thread's status after the change (for thread_deleted: the status it had). */
const thread = z.object({
  threadId: id,
  documentId: id,
  workspaceId: id,
  status: z.enum(['open', 'resolved']),
  /** The thread's creator and every comment author (at most EVENT_MAX_IDS of them, see participantsTruncated). */
  participants: ids,
  participantsTruncated,
  createdBy: id,
  resolvedBy: id.nullable(),
});

const comment = z.object({
  commentId: id,
  threadId: id,
  documentId: id,
  workspaceId: id,
  authorId: id,
  threadCreatedBy: id,
  /** Members mentioned in the content, never the author (empty for deleted). */
  mentions: ids,
  /** The thread's creator and every comment author, after the change (capped like the thread's). */
  participants: ids,
  participantsTruncated,
});

/**
 * For the search index: the comment's content as plain text, mentions shown as `@Name`, at most
 * the comment service's content limit (10,000 characters). Absent in events written before it.
 */
const commentText = z.string().optional();

const attachment = z.object({
  id,
  documentId: id,
  workspaceId: id,
  storageKey: z.string(),
});

export const eventContracts = {
  'user.upserted': userUpserted,
  /**
   * A user's preferences that other services act on, as they are after the change (sent when a
   * preference update sets one of them): the notification service honours notificationsEnabled,
   * e-mails by emailNotifications (ARCHITECTURE 5.18) and writes them in the locale. The two
   * optional fields are absent on events written before e-mail existed.
   */
  'user.preferences_changed': z.object({
    userId: id,
    notificationsEnabled: z.boolean(),
    emailNotifications: z.record(z.enum(NOTIFICATION_TYPES), z.enum(EMAIL_MODES)).optional(),
    locale: z.string().max(10).nullable().optional(),
  }),

  'workspace.created': workspace,
  'workspace.updated': workspace,
  'workspace.deleted': workspace,

  'member.added': member,
  'member.role_changed': member,
  'member.removed': member,

  /** Also sent again, same invitationId and `resent: true`, when an open invitation is refreshed. */
  'invitation.created': invitation.extend({ resent: z.boolean().optional() }),
  'invitation.accepted': invitation,
  'invitation.declined': invitation,
  'invitation.cancelled': invitation,

  /**
   * plainText: for the search index, up to EVENT_TEXT_MAX_BYTES of UTF-8 (limits.ts); when the
   * text was longer it is cut on a character boundary and plainTextTruncated is true: the whole
   * text is at the document service's `GET /internal/documents/{id}/text` (fetchDocumentText in
   * @wiki/service-client). Events written before the flag existed read as not cut.
   */
  'document.created': document.extend({ plainText: z.string(), plainTextTruncated: z.boolean().default(false) }),
  /**
   * revision: the document's revision after the change (ARCHITECTURE 5.16); absent in events
   * written before documents had revisions. editors: everyone whose edits the change holds, when
   * that is more than the actor (a collab save of several people's typing, at most EVENT_MAX_IDS);
   * absent otherwise: the actor made it (watching, ARCHITECTURE 5.18, leaves them untold).
   */
  'document.updated': document.extend({
    plainText: z.string(),
    plainTextTruncated: z.boolean().default(false),
    changed: z.array(z.enum(DOCUMENT_CHANGES)),
    revision: z.number().int().min(1).optional(),
    editors: ids.optional(),
  }),
  /** reason: a move, a plain delete of the parent (the child became a root), a restore that re-rooted it. */
  'document.moved': document.extend({
    previousParentId: id.nullable(),
    reason: z.enum(['move', 'parent-deleted', 'restore']),
  }),
  /**
   * ids: the document and every descendant this archiving hid. Lists longer than EVENT_MAX_IDS
   * (limits.ts) are split over several events (idList): each part names its share of the ids.
   */
  'document.archived': document.extend({ ids: ids.min(1), ...idList }),
  /** ids: the document and every descendant this restoring brought back (split like archived). */
  'document.restored': document.extend({ ids: ids.min(1), ...idList }),
  'document.published': document,
  'document.unpublished': document,
  /**
   * ids: every removed document (the subtree of a cascade, or the document alone); cascade says
   * which. A cascade of more than EVENT_MAX_IDS documents is split (idList), each part naming its
   * share of the ids: consumers act on the ids of each event as they come.
   */
  'document.deleted': document.extend({ ids: ids.min(1), cascade: z.boolean(), ...idList }),

  'comment.thread_created': thread,
  'comment.thread_resolved': thread,
  'comment.thread_reopened': thread,
  'comment.thread_deleted': thread,
  'comment.added': comment.extend({ text: commentText }),
  /** newMentions: the mentions the edit added (the others were told already). */
  'comment.edited': comment.extend({ text: commentText, newMentions: ids.optional() }),
  'comment.deleted': comment,

  'attachment.uploaded': attachment,
  'attachment.deleted': attachment,
  /**
   * The text of an uploaded file is extracted and kept by the attachment service (PDF, Word, HTML,
   * text): how many characters, never the text itself (GET /internal/attachments/{id}/text).
   */
  'attachment.text_extracted': z.object({
    id,
    documentId: id,
    workspaceId: id,
    characters: z.number().int().min(0),
    truncated: z.boolean(),
  }),

  /**
   * A long job (ARCHITECTURE 5.19, the export service's jobs table) finished: ids and outcome only,
   * never its result's files or links; its owner reads those at GET /jobs/{id}.
   */
  'job.finished': z.object({
    id,
    kind: z.enum(['import', 'export']),
    status: z.enum(['done', 'failed']),
    ownerId: id,
    workspaceId: id,
    /** The document an export started from (absent for a workspace export or an import). */
    documentId: id.optional(),
  }),
} as const satisfies Record<string, z.ZodTypeAny>;

export type EventType = keyof typeof eventContracts;
export type EventData<T extends EventType> = z.infer<(typeof eventContracts)[T]>;

/** An envelope whose type is `T` and whose data is that type's contract (a union over `T`'s members). */
export type TypedEvent<T extends EventType = EventType> = T extends EventType ? EventEnvelope<EventData<T>, T> : never;

export function isEventType(type: string): type is EventType {
  return Object.hasOwn(eventContracts, type);
}

/** The types an event type pattern (`document.*`, `comment.>`, `user.upserted`) stands for in the catalog. */
type Matching<P extends string> = P extends `${infer Head}.>`
  ? Extract<EventType, `${Head}.${string}`>
  : P extends `${infer Head}.*`
    ? Extract<EventType, `${Head}.${string}`>
    : Extract<EventType, P>;

/** The patterns that stand for no type of the catalog. */
type Uncatalogued<P extends string> = P extends string ? ([Matching<P>] extends [never] ? P : never) : never;

/**
 * What a consumer of the types (or patterns) `P` receives: the typed events when every pattern is
 * of the catalog, else plain envelopes.
 */
export type EventFor<P extends string> = string extends P
  ? EventEnvelope
  : [Uncatalogued<P>] extends [never]
    ? TypedEvent<Matching<P>>
    : EventEnvelope;

/**
 * An event to write (publishInTx) whose data is checked against the contract at compile time.
 * Nothing is parsed at run time: the types are the check, and producers are on hot paths.
 */
export function newEvent<T extends EventType>(
  type: T,
  event: { actorId: string | null; workspaceId: string | null; data: EventData<T> },
): NewEvent<EventData<T>, T> {
  return { type, actorId: event.actorId, workspaceId: event.workspaceId, data: event.data };
}

/** Thrown for data that does not fit its type's contract; the message names every failing field. */
export class EventContractError extends Error {
  constructor(
    readonly type: string,
    readonly issues: readonly z.ZodIssue[],
  ) {
    super(`data breaks the ${type} contract: ${describeIssues(issues)}`);
    this.name = 'EventContractError';
  }
}

function describeIssues(issues: readonly z.ZodIssue[]): string {
  return issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'data'}: ${issue.message}`).join('; ');
}

/** Parses an event's data against the contract of its type, or throws an EventContractError. */
export function parseEventData<T extends EventType>(type: T, data: unknown): EventData<T> {
  const result = eventContracts[type].safeParse(data);
  if (!result.success) throw new EventContractError(type, result.error.issues);
  return result.data as EventData<T>;
}

/**
 * The envelope with its data parsed when its type is of the catalog (throws EventContractError
 * when the data does not fit); an envelope of another type is returned as it is.
 */
export function checkContract(envelope: EventEnvelope): EventEnvelope {
  if (!isEventType(envelope.type)) return envelope;
  return { ...envelope, data: parseEventData(envelope.type, envelope.data) };
}
