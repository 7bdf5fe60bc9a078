import { randomUUID } from 'node:crypto';
import { createEnvelope, type EventData, type EventType, newEvent, type TypedEvent } from '@wiki/events';

/**
 * Valid event data for tests: every field of the type's contract (@wiki/events) filled, the given
 * ones as given. Ids the given ones imply follow them (a document event's `ids` is `[id]`, a
 * thread's participants its creator), the others are fresh.
 */
type Given<T extends EventType> = Partial<EventData<T>>;
type Defaults = { [T in EventType]: (given: Given<T>) => EventData<T> };

const soon = () => new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString();

const user = (given: Given<'user.upserted'>): EventData<'user.upserted'> => {
  const id = given.id ?? randomUUID();
  return { id, idpUid: `idp|${id}`, email: `${id}@example.com`, name: 'Test User', avatarUrl: null };
};
const workspace = (given: Given<'workspace.created'>): EventData<'workspace.created'> => ({
  id: given.id ?? randomUUID(),
  name: 'Test workspace',
  icon: null,
  isArchived: false,
  ownerId: randomUUID(),
});
const member = (_given: Given<'member.added'>): EventData<'member.added'> => ({
  workspaceId: randomUUID(),
  userId: randomUUID(),
  memberId: randomUUID(),
  role: 'EDITOR',
});
const invitation = (_given: Given<'invitation.accepted'>): EventData<'invitation.accepted'> => ({
  invitationId: randomUUID(),
  workspaceId: randomUUID(),
  email: `${randomUUID()}@example.com`,
  role: 'EDITOR',
  invitedBy: randomUUID(),
  expiresAt: soon(),
  inviteeUserId: null,
});
const document = (given: Given<'document.published'>): EventData<'document.published'> => ({
  id: given.id ?? randomUUID(),
  workspaceId: randomUUID(),
  createdBy: randomUUID(),
  parentId: null,
  title: 'Untitled',
  icon: null,
  isArchived: false,
  isPublished: false,
  isTemplate: false,
  updatedAt: new Date().toISOString(),
});
const subtree = (given: { id?: string }) => {
  const base = document(given);
  return { ...base, ids: [base.id], part: 1, parts: 1 };
};
const thread = (given: Given<'comment.thread_created'>): EventData<'comment.thread_created'> => {
  const createdBy = given.createdBy ?? randomUUID();
  return {
    threadId: randomUUID(),
    documentId: randomUUID(),
    workspaceId: randomUUID(),
    status: 'open',
    participants: [createdBy],
    createdBy,
    resolvedBy: null,
  };
};
const comment = (given: Given<'comment.added'>): EventData<'comment.added'> => {
  const authorId = given.authorId ?? randomUUID();
  const threadCreatedBy = given.threadCreatedBy ?? authorId;
  return {
    commentId: randomUUID(),
    threadId: randomUUID(),
    documentId: randomUUID(),
    workspaceId: randomUUID(),
    authorId,
    threadCreatedBy,
    mentions: [],
    participants: [...new Set([threadCreatedBy, authorId])],
  };
};
const attachment = (_given: Given<'attachment.uploaded'>): EventData<'attachment.uploaded'> => ({
  id: randomUUID(),
  documentId: randomUUID(),
  workspaceId: randomUUID(),
  storageKey: `attachments/${randomUUID()}`,
});

const job = (): EventData<'job.finished'> => ({
  id: randomUUID(),
  kind: 'export',
  status: 'done',
  ownerId: randomUUID(),
  workspaceId: randomUUID(),
});

const defaults: Defaults = {
  'user.upserted': user,
  'user.preferences_changed': () => ({ userId: randomUUID(), notificationsEnabled: true }),
  'workspace.created': workspace,
  'workspace.updated': workspace,
  'workspace.deleted': workspace,
  'member.added': member,
  'member.role_changed': member,
  'member.removed': member,
  'invitation.created': invitation,
  'invitation.accepted': invitation,
  'invitation.declined': invitation,
  'invitation.cancelled': invitation,
  'document.created': (given) => ({ ...document(given), plainText: '', plainTextTruncated: false }),
  'document.updated': (given) => ({ ...document(given), plainText: '', plainTextTruncated: false, changed: ['title'] }),
  'document.moved': (given) => ({ ...document(given), previousParentId: null, reason: 'move' }),
  'document.archived': subtree,
  'document.restored': subtree,
  'document.published': document,
  'document.unpublished': document,
  'document.deleted': (given) => ({ ...subtree(given), cascade: false }),
  'comment.thread_created': thread,
  'comment.thread_resolved': thread,
  'comment.thread_reopened': thread,
  'comment.thread_deleted': thread,
  'comment.added': (given) => ({ ...comment(given), text: 'A test comment' }),
  'comment.edited': (given) => ({ ...comment(given), text: 'An edited test comment' }),
  'comment.deleted': comment,
  'attachment.uploaded': attachment,
  'attachment.deleted': attachment,
  'attachment.text_extracted': () => ({
    id: randomUUID(),
    documentId: randomUUID(),
    workspaceId: randomUUID(),
    characters: 100,
    truncated: false,
  }),
  'job.finished': job,
};

/** Data of `type` that fits its contract: `given` over defaults. */
export function eventData<T extends EventType>(type: T, given: Given<T> = {}): EventData<T> {
  const fill = defaults[type] as (given: Given<T>) => EventData<T>;
  return { ...fill(given), ...given };
}

/**
 * An envelope of `type` whose data fits its contract (see eventData), as a producer of the type
 * would write it. Its workspaceId is the data's (a workspace event's: its id) unless given.
 */
export function testEvent<T extends EventType>(
  type: T,
  options: { data?: Given<T>; actorId?: string | null; workspaceId?: string | null } = {},
): TypedEvent<T> {
  const data = eventData(type, options.data);
  const fields = data as { workspaceId?: string; id?: string };
  const workspaceId =
    options.workspaceId !== undefined
      ? options.workspaceId
      : (fields.workspaceId ?? (type.startsWith('workspace.') ? (fields.id ?? null) : null));
  return createEnvelope(newEvent(type, { actorId: options.actorId ?? null, workspaceId, data })) as TypedEvent<T>;
}
