import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { CollabServer, Logger } from './collab-server.js';

/** Roles below EDITOR: their connections turn read-only (ARCHITECTURE 3, 5.15). */
const READ_ONLY_ROLES = new Set(['VIEWER', 'COMMENTER']);

type Data = Record<string, unknown>;

/** Fields of document.updated that the page shows outside the editor. */
const SHOWN_FIELDS = new Set(['title', 'icon', 'coverImageUrl']);
/** Every comment.* event names its document: the threads of pages that have it open changed. */
const COMMENT_EVENTS = [
  'comment.thread_created',
  'comment.thread_resolved',
  'comment.thread_reopened',
  'comment.thread_deleted',
  'comment.added',
  'comment.edited',
  'comment.deleted',
];

function ids(data: Data): string[] {
  return Array.isArray(data.ids) ? data.ids.filter((id): id is string => typeof id === 'string') : [];
}

/**
 * What the collaboration server takes from the event stream, on every replica (each one holds its
 * own connections): plain NATS subscriptions to the stream's subjects, not a durable consumer,
 * since these act only on what is open right now, and at once (ARCHITECTURE 5.13: within a second).
 * An event missed while NATS was away costs little: a content write is found at the next save
 * (409 -> refresh), and access is checked again at the next connect.
 */
export function subscribeToEvents(
  nc: NatsConnection,
  prefix: string,
  server: CollabServer,
  log: Logger,
): { stop(): Promise<void> } {
  // Pages with the document open read again what the editor does not carry (ARCHITECTURE 5.17).
  const announceDocument = (data: Data) => {
    if (typeof data.id === 'string') server.announce(data.id, 'document');
  };
  const announceComments = (data: Data) => {
    if (typeof data.documentId === 'string') server.announce(data.documentId, 'comments');
  };
  const handlers: Record<string, (data: Data) => void> = {
    'document.updated': (data) => {
      const changed = Array.isArray(data.changed) ? data.changed : [];
      if (changed.some((field) => SHOWN_FIELDS.has(field))) announceDocument(data);
      if (typeof data.id === 'string' && changed.includes('content') && server.rooms.has(data.id)) {
        // A cut text says nothing about the whole: look.
        const text =
          typeof data.plainText === 'string' && data.plainTextTruncated !== true ? data.plainText : undefined;
        server.contentWritten(data.id, text).catch((error: unknown) => {
          log.warn({ err: error, documentId: data.id }, 'collab: a content write could not be taken into the room');
        });
      }
    },
    'document.archived': (data) => {
      const archived = new Set(ids(data));
      server.makeReadOnly((m) => archived.has(m.documentId));
      announceDocument(data);
    },
    'document.restored': announceDocument,
    'document.moved': announceDocument,
    'document.published': announceDocument,
    'document.unpublished': announceDocument,
    ...Object.fromEntries(COMMENT_EVENTS.map((type) => [type, announceComments])),
    'document.deleted': (data) => {
      server.closeDocuments(ids(data), 'document-deleted');
    },
    'member.removed': (data) => {
      server.close((m) => m.workspaceId === data.workspaceId && m.userId === data.userId, 'member-removed');
    },
    'member.role_changed': (data) => {
      if (typeof data.role === 'string' && READ_ONLY_ROLES.has(data.role)) {
        server.makeReadOnly((m) => m.workspaceId === data.workspaceId && m.userId === data.userId);
      }
    },
    'workspace.updated': (data) => {
      if (data.isArchived === true) server.close((m) => m.workspaceId === data.id, 'workspace-archived');
    },
    'workspace.deleted': (data) => {
      server.close((m) => m.workspaceId === data.id, 'workspace-deleted');
    },
  };

  const subscriptions: Subscription[] = Object.entries(handlers).map(([type, handle]) =>
    nc.subscribe(`${prefix}.${type}`, {
      callback: (error, msg) => {
        if (error) return;
        try {
          const envelope = msg.json<{ data?: Data }>();
          if (envelope?.data && typeof envelope.data === 'object') handle(envelope.data);
        } catch (cause) {
          log.warn({ err: cause, subject: msg.subject }, 'collab: an unreadable event was skipped');
        }
      },
    }),
  );
  return {
    async stop() {
      for (const subscription of subscriptions) subscription.unsubscribe();
    },
  };
}
