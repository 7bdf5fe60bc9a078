import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type Connection, type Document, Hocuspocus } from '@hocuspocus/server';
import { CLIENT_ADDRESS_HEADER, UPGRADE_TICKET_HEADER } from '@wiki/auth';
import { type BlockPrint, blockPrints, plainTextOf } from '@wiki/blocks';
import type { ConnectionSlots, Slot } from '@wiki/limits';
import { applyAwarenessUpdate, encodeAwarenessUpdate } from 'y-protocols/awareness';
import * as Y from 'yjs';
import { applyWrite, replaceWhole } from './apply-write.js';
import { blockEditor, FRAGMENT } from './block-editor.js';
import { type CollabUser, type DocumentsApi, Refused, SaveConflict } from './documents-api.js';
import type { ShownUser } from './domain/awareness.js';
import {
  type Block,
  dropNul,
  isEmptyContent,
  parseBlocks,
  saveVerdict,
  seededClientId,
  withSeededIds,
} from './domain/blocks.js';
import { RecentEditors } from './domain/editors.js';
import { decodeRoomCopy, encodeRoomCopy, isPrints } from './domain/room-copy.js';
import { ReplicaKind, type ReplicaMessage, type Replication } from './replication.js';

/**
 * The origin of updates that came from another replica. Hocuspocus stores a room only after
 * updates of its own clients and skips this very origin (the one its Redis extension uses), so
 * a change is stored by the replica whose client made it.
 */
const REMOTE = '__hocuspocus__redis__origin__';
/** The origin of a REST/MCP write taken into a room: stored like a client's edit. */
const REFRESH = { refresh: true };

const DOCUMENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SAVE_ATTEMPTS = 3;

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** What the server knows about an open document besides its Y.Doc. */
interface Room {
  /** The content revision the Y.Doc includes (saves are made against it). */
  revision: number;
  /** Hash of the state last stored (or loaded): an unchanged room is not written again. */
  savedHash: string;
  /** The blocks JSON the document service holds as far as this replica knows. */
  lastJson: string;
  /**
   * The top-level blocks the document service holds as far as the room knows (its last save or
   * load on any replica, or the last write it took in): the base a REST write is merged against.
   */
  base: BlockPrint[];
  /** Whether this room ever held content: only then may an edit's empty document replace it. */
  sawContent: boolean;
  /** The text of lastJson: a document.updated carrying exactly it is this room's own save. */
  lastPlainText: string;
  /** The idp uid of the user whose edit came last (lastEditedBy). */
  lastEditorId?: string;
  /** Who edited since the last save (editorIdpUids). */
  editors: RecentEditors;
  /** REST writes are taken in one at a time. */
  refreshing: Promise<unknown>;
}

/** What a `changed` stateless message says changed: the comment threads or the document's fields. */
export type Announcement = 'comments' | 'document';

/** A client's connection to one document, as revocation needs it. */
interface Member {
  userId: string;
  documentId: string;
  workspaceId: string;
}

export interface AccessContext {
  user: CollabUser;
  workspaceId: string;
  role: string;
  /** The connection's place in its user's COLLAB_CONNECTIONS_PER_USER. */
  slot?: Slot;
}

/** The answer (a Hocuspocus permission-denied reason) to a user who holds as many connections as allowed. */
export const TOO_MANY_CONNECTIONS = 'too-many-connections';

const USERS = Symbol('collab users by document');
const SLOTS = Symbol('collab connection slots by document');
type RequestWithUsers = IncomingMessage & { [USERS]?: Map<string, ShownUser>; [SLOTS]?: Map<string, Slot> };

/**
 * The editor's address as the gateway set it on the upgrade it passed on (it drops a client's own
 * `x-wiki-*` headers); none when a client reached this server without the gateway (tests).
 */
function clientAddressOf(request: IncomingMessage): string | undefined {
  return gatewayHeader(request, CLIENT_ADDRESS_HEADER);
}

function gatewayHeader(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The user a socket authenticated as for a document (the awareness rewrite reads it). */
export function shownUserOf(request: IncomingMessage, documentName: string): ShownUser | undefined {
  return (request as RequestWithUsers)[USERS]?.get(documentName);
}

/** The prints of a Saved message from another replica; undefined when they are not prints. */
function printsOf(payload: Uint8Array): BlockPrint[] | undefined {
  const value: unknown = JSON.parse(Buffer.from(payload).toString('utf8'));
  return isPrints(value) ? value : undefined;
}

function hashOf(state: Uint8Array): string {
  return createHash('sha256').update(state).digest('base64url');
}

/** A Y.Doc built from stored content: the same bytes on every replica for the same (document, revision, content). */
export async function docFromContent(documentId: string, revision: number, contentJson: string): Promise<Y.Doc> {
  const editor = await blockEditor();
  let blocks = parseBlocks(contentJson);
  // One empty paragraph rather than nothing: clients that each add their own would show two.
  if (blocks.length === 0) blocks = [{ type: 'paragraph' }];
  const doc = new Y.Doc();
  doc.clientID = seededClientId(documentId, revision, contentJson);
  editor.blocksToYXmlFragment(withSeededIds(blocks, `${documentId}:${revision}`), doc.getXmlFragment(FRAGMENT));
  return doc;
}

/** The room's blocks as they are stored: without NUL, which the document service refuses (see dropNul). */
async function blocksOf(doc: Y.Doc): Promise<Block[]> {
  return dropNul((await blockEditor()).yDocToBlocks(doc, FRAGMENT) as Block[]);
}

/**
 * The collaboration server (ARCHITECTURE 5.15): Hocuspocus rooms named by document id, loaded and
 * stored only through the internal API, kept in step with REST/MCP writes and with the other
 * replicas, and closed or made read-only when access is revoked.
 */
export class CollabServer {
  readonly hocuspocus: Hocuspocus;
  readonly rooms = new Map<string, Room>();
  private readonly members = new Map<Connection, Member>();
  replication?: Replication;

  constructor(
    private readonly api: DocumentsApi,
    private readonly log: Logger,
    private readonly options: { debounceMs: number; maxDebounceMs: number; peerWaitMs: number },
    /** Connections per user across replicas (refusing at the limit); none: unbounded (tests of other things). */
    private readonly slots?: ConnectionSlots,
  ) {
    this.hocuspocus = new Hocuspocus({
      quiet: true,
      debounce: options.debounceMs,
      maxDebounce: options.maxDebounceMs,
      // A room left by its last client is stored at once and dropped from memory.
      unloadImmediately: true,
      onAuthenticate: (data) => this.authenticate(data.token, data.documentName, data.connectionConfig, data.request),
      connected: async ({ connection, context, documentName }) => {
        const access = context as AccessContext;
        this.members.set(connection, {
          userId: access.user.id,
          documentId: documentName,
          workspaceId: access.workspaceId,
        });
        connection.onClose(() => {
          this.members.delete(connection);
          access.slot?.release();
        });
      },
      onLoadDocument: ({ documentName, document }) => this.load(documentName, document),
      afterLoadDocument: async ({ documentName, document }) => this.joinReplicas(documentName, document),
      onChange: async ({ documentName, transactionOrigin, context }) => {
        const room = this.rooms.get(documentName);
        const user = (context as Partial<AccessContext> | undefined)?.user;
        if (room && user && transactionOrigin && transactionOrigin !== REFRESH) {
          room.lastEditorId = user.id;
          room.editors.touch(user.id);
        }
      },
      onStoreDocument: ({ documentName, document }) => this.store(documentName, document),
      // Changes that came only from other replicas are stored by the replica whose client made
      // them; should that one die before its debounce ran out, the room's last replica stores
      // them when it closes the room. A store that fails does not keep the room in memory.
      beforeUnloadDocument: async ({ documentName, document }) => {
        await this.store(documentName, document).catch((error: unknown) => {
          this.log.error({ err: error, documentId: documentName }, 'collab: a closing room could not be stored');
        });
      },
      afterUnloadDocument: async ({ documentName }) => {
        this.replication?.leave(documentName);
        this.rooms.delete(documentName);
      },
    });
  }

  private async authenticate(
    token: string,
    documentName: string,
    connectionConfig: { readOnly: boolean },
    request: IncomingMessage,
  ): Promise<AccessContext> {
    // One spelling per document: an upper-case id would open a second room for the same page.
    if (!DOCUMENT_ID.test(documentName)) throw { reason: 'not-found' };
    let access: AccessContext;
    let canEdit: boolean;
    try {
      // The upgrade's ticket (it came without a token) goes back too: a valid token redeems it.
      const ticket = gatewayHeader(request, UPGRADE_TICKET_HEADER);
      const user = await this.api.verifyUser(token, clientAddressOf(request), ticket);
      const permission = await this.api.permission(documentName, user.id);
      access = { user, workspaceId: permission.workspaceId, role: permission.role };
      canEdit = permission.canEdit;
    } catch (error) {
      if (error instanceof Refused) throw { reason: error.reason };
      this.log.warn({ err: error, documentId: documentName }, 'collab: access could not be checked');
      throw { reason: 'unavailable' };
    }
    // Counted once the user is known and may open the document, so a refused token costs nobody a place.
    if (this.slots) {
      const slot = await this.slots.take(access.user.id, () => undefined);
      if (!slot) {
        this.log.info({ userId: access.user.id }, 'collab: connection refused, the user holds as many as allowed');
        throw { reason: TOO_MANY_CONNECTIONS };
      }
      access.slot = slot;
      const withSlots = request as RequestWithUsers;
      withSlots[SLOTS] ??= new Map();
      withSlots[SLOTS].get(documentName)?.release();
      withSlots[SLOTS].set(documentName, slot);
    }
    connectionConfig.readOnly = !canEdit;
    const withUsers = request as RequestWithUsers;
    withUsers[USERS] ??= new Map();
    withUsers[USERS].set(documentName, { id: access.user.id, name: access.user.name });
    return access;
  }

  /**
   * Lets go of every place the socket's connections held (the socket closed). A connection that
   * closes on its own lets go of its own; this also covers one whose set-up failed after it was
   * counted, which never becomes a connection.
   */
  releaseSlotsOf(request: IncomingMessage): void {
    const slots = (request as RequestWithUsers)[SLOTS];
    if (!slots) return;
    for (const slot of slots.values()) slot.release();
    slots.clear();
  }

  private async load(documentId: string, document: Document): Promise<void> {
    const stored = await this.api.loadState(documentId);
    if (stored.state) {
      Y.applyUpdate(document, stored.state);
      const blocks = await blocksOf(document);
      this.rooms.set(documentId, this.newRoom(stored.contentRevision, document, blocks));
      return;
    }
    // The state was never stored, or a write came after the last store: a replica that holds the
    // room open may have taken that write in without storing it yet. Its copy, not a build of our
    // own, which would hold different items and so give the room twice once the replicas sync.
    if (await this.loadFromPeer(documentId, document)) return;
    const { content, contentRevision } = await this.api.loadContent(documentId);
    Y.applyUpdate(document, Y.encodeStateAsUpdate(await docFromContent(documentId, contentRevision, content)));
    this.rooms.set(documentId, this.newRoom(contentRevision, document, await blocksOf(document)));
  }

  private newRoom(revision: number, document: Y.Doc, blocks: Block[]): Room {
    return {
      revision,
      savedHash: hashOf(Y.encodeStateAsUpdate(document)),
      lastJson: JSON.stringify(blocks),
      base: blockPrints(blocks),
      sawContent: !isEmptyContent(blocks),
      lastPlainText: plainTextOf(blocks),
      editors: new RecentEditors(),
      refreshing: Promise.resolve(),
    };
  }

  /** Takes the room over from a replica holding it open, if one answers (COLLAB_PEER_WAIT_MS). */
  private async loadFromPeer(documentId: string, document: Document): Promise<boolean> {
    const answer = await this.replication?.copyFromPeers(documentId, this.options.peerWaitMs);
    const copy = answer && decodeRoomCopy(answer.payload);
    if (!answer || !copy) return false;
    Y.applyUpdate(document, copy.state);
    const { base, lastJson, savedHash, sawContent } = copy.view;
    this.rooms.set(documentId, {
      revision: answer.revision,
      // The holder's: a room that holds no more than what was stored is not stored again.
      savedHash,
      lastJson,
      base,
      sawContent,
      lastPlainText: plainTextOf(parseBlocks(lastJson)),
      editors: new RecentEditors(),
      refreshing: Promise.resolve(),
    });
    return true;
  }

  /** The room as a replica about to open it takes it over (ReplicaKind.Copy); none unless open here. */
  copyOf(documentId: string): { revision: number; payload: Uint8Array } | undefined {
    const document = this.hocuspocus.documents.get(documentId);
    const room = this.rooms.get(documentId);
    if (!document || !room) return undefined;
    const { base, lastJson, savedHash, sawContent } = room;
    const payload = encodeRoomCopy({
      view: { base, lastJson, savedHash, sawContent },
      state: Y.encodeStateAsUpdate(document),
    });
    return { revision: room.revision, payload };
  }

  private joinReplicas(documentId: string, document: Document): void {
    const replication = this.replication;
    if (!replication) return;
    replication.join(documentId);
    document.on('update', (update: Uint8Array, origin: unknown) => {
      const room = this.rooms.get(documentId);
      if (origin !== REMOTE && room) replication.publish(documentId, ReplicaKind.Update, room.revision, update);
    });
    document.awareness.on(
      'update',
      ({ added, updated, removed }: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => {
        if (origin === REMOTE) return;
        const changed = [...added, ...updated, ...removed];
        const room = this.rooms.get(documentId);
        if (room && changed.length > 0) {
          replication.publish(
            documentId,
            ReplicaKind.Awareness,
            room.revision,
            encodeAwarenessUpdate(document.awareness, changed),
          );
        }
      },
    );
    const room = this.rooms.get(documentId);
    replication.publish(documentId, ReplicaKind.SyncRequest, room?.revision ?? 0, Y.encodeStateVector(document));
  }

  /** A message from another replica about a room open here. */
  fromReplica(documentId: string, message: ReplicaMessage): void {
    const document = this.hocuspocus.documents.get(documentId);
    const room = this.rooms.get(documentId);
    if (!document || !room || !this.replication) return;
    // The sender took in a REST write this replica has not yet: its updates carry it here.
    if (message.revision > room.revision) room.revision = message.revision;
    const answer = (kind: ReplicaKind, payload: Uint8Array) =>
      this.replication?.publish(documentId, kind, room.revision, payload);
    try {
      switch (message.kind) {
        case ReplicaKind.Update:
          Y.applyUpdate(document, message.payload, REMOTE);
          break;
        case ReplicaKind.SyncRequest:
        case ReplicaKind.SyncReply: {
          const missing = Y.encodeStateAsUpdate(document, message.payload);
          if (missing.length > 2) answer(ReplicaKind.Update, missing);
          if (message.kind === ReplicaKind.SyncRequest) answer(ReplicaKind.SyncReply, Y.encodeStateVector(document));
          break;
        }
        case ReplicaKind.Awareness:
          applyAwarenessUpdate(document.awareness, message.payload, REMOTE);
          break;
        case ReplicaKind.Saved:
          // A save of the same revision by the sender: the stored blocks are the base of the next write.
          if (message.revision === room.revision) room.base = printsOf(message.payload) ?? room.base;
          break;
      }
    } catch (error) {
      this.log.warn({ err: error, documentId }, 'collab: a message from another replica could not be applied');
    }
  }

  private async store(documentId: string, document: Document): Promise<void> {
    const room = this.rooms.get(documentId);
    if (!room) return;
    for (let attempt = 1; ; attempt += 1) {
      const state = Y.encodeStateAsUpdate(document);
      const hash = hashOf(state);
      const blocks = await blocksOf(document);
      const empty = isEmptyContent(blocks);
      const verdict = await saveVerdict({
        unchanged: hash === room.savedHash,
        empty,
        sawContent: room.sawContent,
        storedIsEmpty: async () => isEmptyContent(parseBlocks((await this.api.loadContent(documentId)).content)),
      });
      if (verdict === 'skip-unchanged') return;
      if (verdict === 'refuse-empty') {
        this.log.warn({ documentId }, 'collab: an empty room was not stored over the non-empty document');
        return;
      }
      const json = JSON.stringify(blocks);
      const contentChanged = json !== room.lastJson;
      const plainText = plainTextOf(blocks);
      const editors = room.editors.snapshot();
      const revision = room.revision;
      try {
        await this.api.save(documentId, {
          state,
          contentRevision: revision,
          ...(contentChanged
            ? {
                jsonContent: json,
                plainText,
                idpUid: room.lastEditorId,
                editorIdpUids: editors.map(([idpUid]) => idpUid),
              }
            : {}),
        });
        room.savedHash = hash;
        room.lastJson = json;
        room.lastPlainText = plainText;
        if (contentChanged) room.editors.saved(editors);
        // Unless a write was taken in meanwhile (its blocks are the base now), the saved blocks are.
        if (contentChanged && room.revision === revision) {
          room.base = blockPrints(blocks);
          const prints = Buffer.from(JSON.stringify(room.base));
          this.replication?.publish(documentId, ReplicaKind.Saved, revision, prints);
        }
        if (!empty) room.sawContent = true;
        return;
      } catch (error) {
        if (error instanceof Refused) {
          this.closeDocuments([documentId], 'document-deleted');
          return;
        }
        if (error instanceof SaveConflict) {
          // Either a REST/MCP write this room has not taken in yet, or the document was archived.
          if (await this.refresh(documentId)) continue;
          this.log.info({ documentId }, 'collab: the document is read-only now; its room stays unsaved');
          this.makeReadOnly((m) => m.documentId === documentId);
          return;
        }
        if (attempt >= SAVE_ATTEMPTS) throw error;
        this.log.warn({ err: error, documentId, attempt }, 'collab: store failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
      }
    }
  }

  /**
   * Takes a REST/MCP/restore write into the open room block by block (applyWrite): the top-level
   * blocks the write changed relative to the room's base are inserted, deleted, replaced or moved,
   * and every other block keeps what its editors typed. Should the room not be laid out as
   * expected, the written blocks replace its whole top level instead (logged). Either way the new
   * items are made under client ids seeded from the write, so replicas doing this at the same time
   * make the same items. Answers whether the room moved to a newer revision.
   */
  refresh(documentId: string): Promise<boolean> {
    const room = this.rooms.get(documentId);
    if (!room) return Promise.resolve(false);
    const run = room.refreshing.then(async () => {
      const document = this.hocuspocus.documents.get(documentId);
      if (!document) return false;
      const { content, contentRevision } = await this.api.loadContent(documentId);
      if (contentRevision <= room.revision) return false;
      const fresh = await docFromContent(documentId, contentRevision, content);
      const theirs = await blocksOf(fresh);
      const editor = await blockEditor();
      // From here on synchronous: the room's blocks cannot change between reading and writing them.
      room.revision = contentRevision;
      const mine = dropNul(editor.yDocToBlocks(document, FRAGMENT) as Block[]);
      try {
        applyWrite(document, editor, { documentId, revision: contentRevision, base: room.base, mine, theirs }, REFRESH);
      } catch (error) {
        this.log.warn(
          { err: error, documentId },
          'collab: a write could not be applied block by block; the room takes it whole',
        );
        replaceWhole(document, fresh, REFRESH);
      }
      // What is stored now is theirs: a save of the merged room writes what mine adds to it.
      room.base = blockPrints(theirs);
      room.lastJson = JSON.stringify(theirs);
      room.lastPlainText = plainTextOf(theirs);
      if (!isEmptyContent(theirs)) room.sawContent = true;
      return true;
    });
    room.refreshing = run.catch(() => undefined);
    return run;
  }

  private each(filter: (member: Member) => boolean, act: (connection: Connection) => void): number {
    let count = 0;
    for (const [connection, member] of [...this.members]) {
      if (!filter(member)) continue;
      act(connection);
      count += 1;
    }
    return count;
  }

  /**
   * A content write announced by document.updated: taken into the room unless its text is exactly
   * what this room last stored (its own save; every replica but the saver still looks). A write
   * that changed formatting alone is caught by the next save's 409 instead.
   */
  contentWritten(documentId: string, plainText: string | undefined): Promise<boolean> {
    const room = this.rooms.get(documentId);
    if (!room || (plainText !== undefined && plainText === room.lastPlainText)) return Promise.resolve(false);
    return this.refresh(documentId);
  }

  /**
   * Tells the room's connections on this replica that something shown beside the editor changed
   * (the threads, or the document's title, icon, cover, place or state), so their pages read it
   * again. The message is one of two fixed words, never the change itself: it cannot grow with
   * what people typed. A document nobody holds open here costs a map lookup.
   */
  announce(documentId: string, what: Announcement): void {
    this.hocuspocus.documents.get(documentId)?.broadcastStateless(JSON.stringify({ type: 'changed', what }));
  }

  /** Drops the connections (the client is told why: a Hocuspocus close message with the reason). */
  close(filter: (member: Member) => boolean, reason: string): number {
    return this.each(filter, (connection) => {
      connection.sendStateless(JSON.stringify({ type: 'access', access: 'revoked', reason }));
      connection.close({ code: 4403, reason });
    });
  }

  /** Updates of these connections are refused from now on; the client is told with a stateless message. */
  makeReadOnly(filter: (member: Member) => boolean): number {
    return this.each(filter, (connection) => {
      if (connection.readOnly) return;
      connection.readOnly = true;
      connection.sendStateless(JSON.stringify({ type: 'access', access: 'read-only' }));
    });
  }

  closeDocuments(ids: readonly string[], reason: string): number {
    const set = new Set(ids);
    return this.close((m) => set.has(m.documentId), reason);
  }

  /** Stores every room that has unsaved changes (shutdown). */
  async flush(): Promise<void> {
    const pending: Promise<unknown>[] = [];
    for (const name of this.hocuspocus.documents.keys()) {
      const key = `onStoreDocument-${name}`;
      if (this.hocuspocus.debouncer.isDebounced(key)) pending.push(this.hocuspocus.debouncer.executeNow(key));
    }
    await Promise.allSettled(pending);
  }
}
