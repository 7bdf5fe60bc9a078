import { randomUUID } from 'node:crypto';
import { eventData } from '@wiki/testing';
import {
  checkContract,
  EventContractError,
  type EventData,
  type EventFor,
  type EventType,
  eventContracts,
  isEventType,
  newEvent,
  parseEventData,
  type TypedEvent,
} from './contracts.js';
import { createEnvelope } from './envelope.js';

const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
const at = '2026-01-02T03:04:05.678Z';

/** One payload per family as its producer writes it today (services/<producer>/src/events/producers.ts). */
const user: EventData<'user.upserted'> = {
  id: a,
  idpUid: 'idp|ada',
  email: 'ada@example.com',
  name: 'Ada',
  avatarUrl: null,
};
const workspace: EventData<'workspace.updated'> = { id: a, name: 'Team', icon: null, isArchived: false, ownerId: b };
const member: EventData<'member.added'> = { workspaceId: a, userId: b, memberId: c, role: 'EDITOR' };
const invitation: EventData<'invitation.accepted'> = {
  invitationId: a,
  workspaceId: b,
  email: 'bob@example.com',
  role: 'VIEWER',
  invitedBy: c,
  expiresAt: at,
  inviteeUserId: null,
};
const document: EventData<'document.published'> = {
  id: a,
  workspaceId: b,
  createdBy: c,
  parentId: null,
  title: 'Notes',
  icon: '📄',
  isArchived: false,
  isPublished: true,
  isTemplate: false,
  updatedAt: at,
};
const thread: EventData<'comment.thread_resolved'> = {
  threadId: a,
  documentId: b,
  workspaceId: c,
  status: 'resolved',
  participants: [a, b],
  createdBy: a,
  resolvedBy: b,
};
const comment: EventData<'comment.added'> = {
  commentId: a,
  threadId: b,
  documentId: c,
  workspaceId: a,
  authorId: b,
  threadCreatedBy: c,
  mentions: [a],
  participants: [b, c],
};

const samples: { [T in EventType]: EventData<T> } = {
  'user.upserted': user,
  'user.preferences_changed': { userId: a, notificationsEnabled: false },
  'workspace.created': workspace,
  'workspace.updated': workspace,
  'workspace.deleted': { ...workspace, isArchived: true },
  'member.added': member,
  'member.role_changed': { ...member, role: 'ADMIN' },
  'member.removed': member,
  'invitation.created': { ...invitation, inviteeUserId: c, resent: true },
  'invitation.accepted': invitation,
  'invitation.declined': invitation,
  'invitation.cancelled': invitation,
  'document.created': { ...document, plainText: 'Hello', plainTextTruncated: false },
  'document.updated': {
    ...document,
    plainText: 'Hello again',
    plainTextTruncated: true,
    changed: ['title', 'content', 'lastEditedBy'],
    revision: 4,
  },
  'document.moved': { ...document, parentId: c, previousParentId: null, reason: 'move' },
  'document.archived': { ...document, isArchived: true, ids: [a, c], part: 1, parts: 1 },
  'document.restored': { ...document, ids: [a], part: 1, parts: 1 },
  'document.published': document,
  'document.unpublished': { ...document, isPublished: false },
  'document.deleted': { ...document, ids: [a, c], cascade: true, part: 2, parts: 3 },
  'comment.thread_created': { ...thread, status: 'open', resolvedBy: null },
  'comment.thread_resolved': thread,
  'comment.thread_reopened': { ...thread, status: 'open' },
  'comment.thread_deleted': thread,
  'comment.added': { ...comment, text: 'Ask @Ada about it' },
  'comment.edited': { ...comment, text: 'Ask @Ada Lovelace', newMentions: [a] },
  'comment.deleted': { ...comment, mentions: [] },
  'attachment.uploaded': { id: a, documentId: b, workspaceId: c, storageKey: 'ws/doc/file.png' },
  'attachment.deleted': { id: a, documentId: b, workspaceId: c, storageKey: 'ws/doc/file.png' },
  'attachment.text_extracted': { id: a, documentId: b, workspaceId: c, characters: 1200, truncated: false },
  'job.finished': { id: a, kind: 'export', status: 'done', ownerId: b, workspaceId: c, documentId: a },
};

const types = Object.keys(eventContracts) as EventType[];

describe('event contracts', () => {
  it('has a contract for every type of the catalog (ARCHITECTURE 4) the services produce or will', () => {
    expect(types.sort()).toEqual(Object.keys(samples).sort());
    expect(types).toHaveLength(31);
    expect(isEventType('document.created')).toBe(true);
    expect(isEventType('document.exploded')).toBe(false);
    expect(isEventType('toString')).toBe(false);
  });

  it.each(types)('parses a valid %s payload as it is', (type) => {
    expect(parseEventData(type, samples[type])).toEqual(samples[type]);
    // And what the test factories make (@wiki/testing eventData) fits too.
    expect(() => parseEventData(type, eventData(type))).not.toThrow();
  });

  it('reads events written before bounded events as whole: text not cut, an id list in one part', () => {
    const { plainTextTruncated: _cut, ...oldCreated } = samples['document.created'];
    expect(parseEventData('document.created', oldCreated)).toEqual({ ...oldCreated, plainTextTruncated: false });
    const { part: _part, parts: _parts, ...oldDeleted } = samples['document.deleted'];
    expect(parseEventData('document.deleted', oldDeleted)).toEqual({ ...oldDeleted, part: 1, parts: 1 });
  });

  it('reads events written before documents named their creator and comments carried their text', () => {
    const { createdBy: _by, ...oldPublished } = document;
    expect(parseEventData('document.published', oldPublished)).toEqual(oldPublished);
    const { createdBy: _creator, ...oldUpdated } = samples['document.updated'];
    expect(parseEventData('document.updated', oldUpdated)).not.toHaveProperty('createdBy');
    expect(parseEventData('comment.added', comment)).toEqual(comment);
    expect(parseEventData('comment.edited', { ...comment, newMentions: [a] })).not.toHaveProperty('text');
  });

  it('drops fields the contract does not list (a producer may add one before its consumers know it)', () => {
    expect(parseEventData('member.added', { ...member, note: 'extra' })).toEqual(member);
  });

  it('refuses a wrong payload, naming each failing field', () => {
    const fails = (type: EventType, data: unknown) => {
      try {
        parseEventData(type, data);
      } catch (error) {
        expect(error).toBeInstanceOf(EventContractError);
        return (error as Error).message;
      }
      throw new Error(`${type} accepted ${JSON.stringify(data)}`);
    };
    expect(fails('user.upserted', { ...user, id: 'nope' })).toBe(
      'data breaks the user.upserted contract: id: Invalid uuid',
    );
    expect(fails('member.added', { ...member, role: 'EMPEROR' })).toMatch(
      /^data breaks the member.added contract: role: /,
    );
    const { workspaceId: _, ...noWorkspace } = document;
    expect(fails('document.created', { ...noWorkspace, plainText: 3 })).toBe(
      'data breaks the document.created contract: workspaceId: Required; plainText: Expected string, received number',
    );
    expect(fails('document.deleted', { ...document, ids: [], cascade: false })).toMatch(/: ids: Array must contain at/);
    expect(fails('document.archived', { ...document, ids: [a, 'x'] })).toMatch(/: ids\.1: Invalid uuid$/);
    expect(fails('document.updated', { ...document, plainText: '', changed: ['colour'] })).toMatch(/: changed\.0: /);
    expect(fails('document.published', { ...document, createdBy: 'Ada' })).toMatch(/: createdBy: Invalid uuid$/);
    expect(fails('comment.added', { ...comment, text: 42 })).toMatch(/: text: Expected string, received number$/);
    expect(fails('invitation.accepted', { ...invitation, expiresAt: 'tomorrow' })).toMatch(
      /: expiresAt: Invalid datetime$/,
    );
    expect(fails('comment.thread_created', { ...thread, status: 'OPEN' })).toMatch(/: status: /);
    expect(fails('workspace.deleted', null)).toMatch(/contract: data: Expected object, received null$/);
  });

  it('checkContract parses the data of a catalogued type and passes any other type through', () => {
    const typed = createEnvelope(newEvent('member.removed', { actorId: a, workspaceId: a, data: member }));
    expect(checkContract({ ...typed, data: { ...member, extra: 1 } })).toEqual(typed);
    const other = createEnvelope({ type: 'test.happened', data: { anything: true } });
    expect(checkContract(other)).toBe(other);
    expect(() => checkContract({ ...typed, data: { ...member, userId: 1 } })).toThrow(EventContractError);
  });

  it('types producers and consumers from the contracts', () => {
    const event = newEvent('document.moved', {
      actorId: a,
      workspaceId: b,
      data: { ...document, previousParentId: null, reason: 'restore' },
    });
    expect(event.type).toBe('document.moved');
    // @ts-expect-error: a field the contract does not have
    newEvent('user.upserted', { actorId: null, workspaceId: null, data: { ...user, nickname: 'x' } });
    // @ts-expect-error: a missing field
    newEvent('workspace.created', { actorId: null, workspaceId: null, data: { id: a, name: 'x' } });
    const moved = { ...document, previousParentId: null };
    // @ts-expect-error: not a reason of the contract
    newEvent('document.moved', { actorId: a, workspaceId: b, data: { ...moved, reason: 'x' } });

    // A pattern gives the union of its types, narrowed by `type`.
    const statusOf = (e: EventFor<'comment.*'>) => (e.type === 'comment.thread_resolved' ? e.data.status : null);
    expect(
      statusOf(createEnvelope(newEvent('comment.thread_resolved', { actorId: a, workspaceId: c, data: thread }))),
    ).toBe('resolved');
    const typedMember: TypedEvent<'member.added'> = createEnvelope(
      newEvent('member.added', { actorId: a, workspaceId: a, data: member }),
    );
    const anyOfTheCatalog: EventFor<'member.*' | 'workspace.deleted'> = typedMember;
    const plain: EventFor<'test.happened'> = createEnvelope({ type: 'test.happened', data: { n: 1 } });
    expect([anyOfTheCatalog.type, plain.type]).toEqual(['member.added', 'test.happened']);
  });
});
