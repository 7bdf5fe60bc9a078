import { HocuspocusProvider, WebSocketStatus } from '@hocuspocus/provider';
import * as Y from 'yjs';

/** Where the gateway takes the collaboration WebSocket (ARCHITECTURE 5.15). */
export function collabUrl(location: Location = window.location): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/collab`;
}

/** The Y.Doc fragment BlockNote keeps the document in: the one the collab service reads. */
export const FRAGMENT = 'document-store';

export type ConnectionState = 'connecting' | 'connected' | 'offline' | 'reconnecting' | 'refused';

/** What the server says changed beside the editor: the comment threads, or the document's title, icon, cover, place or state. */
export type Announcement = 'comments' | 'document';
const ANNOUNCEMENTS: readonly Announcement[] = ['comments', 'document'];

/** The server's `{ type: 'changed', what }` stateless message; anything else (access notices) is not one. */
export function announcementOf(payload: string): Announcement | null {
  try {
    const message = JSON.parse(payload) as { type?: unknown; what?: unknown };
    if (message?.type !== 'changed') return null;
    return message.what === 'comments' || message.what === 'document' ? message.what : null;
  } catch {
    return null;
  }
}

/** Someone in the room as their awareness state names them (the server sets id and name). */
export interface RoomPerson {
  clientId: number;
  id: string;
  name: string;
  color: string;
}

/**
 * One open document on the collaboration server: its Y.Doc, the Hocuspocus provider and what
 * the page shows about the connection. While the browser says it is offline the socket is closed
 * on purpose (a dead socket would otherwise linger until its 30 s message timeout); edits keep
 * going into the Y.Doc and are exchanged when the provider syncs again after `online`.
 */
export class CollabRoom {
  readonly doc = new Y.Doc();
  readonly provider: HocuspocusProvider;
  private state: ConnectionState;
  private everSynced = false;
  private refusal: string | null = null;
  private readonly listeners = new Set<() => void>();
  private readonly announced = new Set<(what: Announcement) => void>();

  constructor(documentId: string, token: () => Promise<string>) {
    this.state = navigator.onLine ? 'connecting' : 'offline';
    this.provider = new HocuspocusProvider({
      url: collabUrl(),
      name: documentId,
      document: this.doc,
      token,
      onStatus: ({ status }) => {
        if (status !== WebSocketStatus.Connected) this.settle();
      },
      onSynced: () => {
        // Back after a break: what was announced meanwhile never arrived.
        if (this.everSynced) for (const listener of this.announced) for (const what of ANNOUNCEMENTS) listener(what);
        this.everSynced = true;
        this.settle();
      },
      onStateless: ({ payload }) => {
        const what = announcementOf(payload);
        if (what) for (const listener of this.announced) listener(what);
      },
      onAuthenticationFailed: ({ reason }) => {
        this.refusal = reason || 'the server refused the connection';
        this.settle();
        // Retrying with the same token would be refused again: the person chooses to retry.
        void this.provider.disconnect();
      },
    });
    window.addEventListener('offline', this.goOffline);
    window.addEventListener('online', this.goOnline);
    if (!navigator.onLine) void this.provider.disconnect();
  }

  connectionState(): ConnectionState {
    return this.state;
  }

  /** Why the server refused this person, when it did. */
  refusalReason(): string | null {
    return this.refusal;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getState = (): ConnectionState => this.state;

  /** Calls `listener` with each announcement of the server until the returned function is called. */
  onAnnouncement(listener: (what: Announcement) => void): () => void {
    this.announced.add(listener);
    return () => this.announced.delete(listener);
  }

  retry(): void {
    this.refusal = null;
    this.settle();
    void this.provider.connect();
  }

  /** The others in the room (and this tab's person once more for each other tab of theirs). */
  people(): RoomPerson[] {
    const own = this.doc.clientID;
    const people: RoomPerson[] = [];
    for (const [clientId, state] of this.provider.awareness?.getStates() ?? []) {
      const user = (state as { user?: Partial<RoomPerson> }).user;
      if (clientId === own || !user?.name) continue;
      people.push({ clientId, id: user.id ?? String(clientId), name: user.name, color: user.color ?? '' });
    }
    return people;
  }

  close(): void {
    window.removeEventListener('offline', this.goOffline);
    window.removeEventListener('online', this.goOnline);
    this.listeners.clear();
    this.announced.clear();
    this.provider.destroy();
    this.doc.destroy();
  }

  private readonly goOffline = () => {
    this.settle();
    void this.provider.disconnect();
  };

  private readonly goOnline = () => {
    this.settle();
    if (!this.refusal) void this.provider.connect();
  };

  /** Derives the shown state from the socket, the sync and the browser's own idea of the network. */
  private settle(): void {
    // The provider reports its first status while it is being constructed.
    if (this.provider === undefined) return;
    const next: ConnectionState = this.refusal
      ? 'refused'
      : !navigator.onLine
        ? 'offline'
        : this.provider.isSynced && this.provider.configuration.websocketProvider.status === WebSocketStatus.Connected
          ? 'connected'
          : this.everSynced
            ? 'reconnecting'
            : 'connecting';
    if (next === this.state) return;
    this.state = next;
    for (const listener of this.listeners) listener();
  }
}
