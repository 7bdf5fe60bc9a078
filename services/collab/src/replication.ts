import { randomBytes } from 'node:crypto';
import { createInbox, type NatsConnection, type Subscription } from '@nats-io/transport-node';

/** What replicas of the collaboration server tell each other about one document. */
export const ReplicaKind = {
  /** A Yjs update made or received on the sending replica. */
  Update: 1,
  /** The sender's state vector: answer with what it lacks (an Update) and your own vector (SyncReply). */
  SyncRequest: 2,
  /** The sender's state vector: answer with what it lacks, nothing more. */
  SyncReply: 3,
  /** An awareness update (cursors, who is here). */
  Awareness: 4,
  /** The sender stored the room at this revision: the payload is the stored blocks' prints (JSON), the next write's base. */
  Saved: 5,
  /**
   * The answer to a replica about to open the room, sent only to it: the revision the room is at
   * and, as payload, its whole state with what the server knows about it (domain/room-copy.ts).
   */
  Copy: 6,
} as const;
export type ReplicaKind = (typeof ReplicaKind)[keyof typeof ReplicaKind];

export interface ReplicaMessage {
  kind: ReplicaKind;
  /** The content revision the sender's room is at (a REST write it took in raises it). */
  revision: number;
  payload: Uint8Array;
}

// kind (1) + replica id (16) + revision (8) + message number (4) + chunk index (2) + chunk count (2)
const HEADER = 33;
const FALLBACK_MAX_PAYLOAD = 1024 * 1024;

/** What a replica holding a room open answers a replica about to open it (undefined: it does not hold it). */
export type CopyOf = (documentId: string) => { revision: number; payload: Uint8Array } | undefined;

/**
 * Puts chunked messages back together, per sender (NATS keeps one publisher's messages in order),
 * and drops the receiver's own.
 */
class Reassembler {
  private readonly partial = new Map<string, { number: number; chunks: Uint8Array[]; received: number }>();

  constructor(private readonly self: Uint8Array) {}

  receive(data: Uint8Array): ReplicaMessage | null {
    if (data.length < HEADER) return null;
    const sender = Buffer.from(data.subarray(1, 17));
    if (sender.equals(this.self)) return null;
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const kind = data[0] as ReplicaKind;
    const revision = view.getFloat64(17);
    const number = view.getUint32(25);
    const index = view.getUint16(29);
    const count = view.getUint16(31);
    const chunk = data.subarray(HEADER);
    if (count <= 1) return { kind, revision, payload: chunk };

    const key = sender.toString('hex');
    let pending = this.partial.get(key);
    // A new message from the same sender means the old one lost a chunk (a slow consumer): drop it.
    if (!pending || pending.number !== number || index === 0) {
      pending = { number, chunks: [], received: 0 };
      this.partial.set(key, pending);
    }
    if (index !== pending.received) {
      this.partial.delete(key);
      return null;
    }
    pending.chunks.push(chunk.slice());
    pending.received += 1;
    if (pending.received < count) return null;
    this.partial.delete(key);
    return { kind, revision, payload: Buffer.concat(pending.chunks) };
  }
}

/**
 * Replicas share every room over NATS core subjects (`collab.<prefix>.doc.<id>`, outside the
 * event stream's `<prefix>.>`): each replica applies the others' updates, so clients of one
 * document may be spread over any replicas and still converge (Yjs updates commute and repeat
 * harmlessly). A message larger than the server's max_payload travels in chunks; NATS keeps one
 * publisher's messages in order, so chunks are reassembled per sender.
 *
 * A replica holding a room open also listens on `collab.<prefix>.room.<id>`, where a replica about
 * to open it asks for a copy (copyFromPeers). Only holders listen there, so when none does the
 * NATS server answers "no responders" at once and the asker does not wait.
 */
export class Replication {
  readonly replicaId = randomBytes(16);
  private readonly subscriptions = new Map<string, Subscription[]>();
  private readonly incoming = new Reassembler(this.replicaId);
  private sequence = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly prefix: string,
    private readonly deliver: (documentId: string, message: ReplicaMessage) => void,
    private readonly copyOf: CopyOf = () => undefined,
  ) {}

  private subject(documentId: string): string {
    return `collab.${this.prefix}.doc.${documentId}`;
  }

  private roomSubject(documentId: string): string {
    return `collab.${this.prefix}.room.${documentId}`;
  }

  /** Shares the room with the other replicas, and answers those about to open it with a copy. */
  join(documentId: string): void {
    if (this.subscriptions.has(documentId)) return;
    const updates = this.nc.subscribe(this.subject(documentId), {
      callback: (error, msg) => {
        if (error) return;
        const message = this.incoming.receive(msg.data);
        if (message) this.deliver(documentId, message);
      },
    });
    const askers = this.nc.subscribe(this.roomSubject(documentId), {
      callback: (error, msg) => {
        if (error || !msg.reply) return;
        const copy = this.copyOf(documentId);
        if (copy) this.send(msg.reply, ReplicaKind.Copy, copy.revision, copy.payload);
      },
    });
    this.subscriptions.set(documentId, [updates, askers]);
  }

  leave(documentId: string): void {
    for (const subscription of this.subscriptions.get(documentId) ?? []) subscription.unsubscribe();
    this.subscriptions.delete(documentId);
  }

  publish(documentId: string, kind: ReplicaKind, revision: number, payload: Uint8Array): void {
    this.send(this.subject(documentId), kind, revision, payload);
  }

  /**
   * The room as a replica holding it open has it (a Copy message; the first complete one when
   * several answer), or undefined when no replica holds it (answered at once) or none answered
   * within `waitMs` of the ask or of its last chunk. `waitMs` 0 does not ask.
   */
  copyFromPeers(documentId: string, waitMs: number): Promise<ReplicaMessage | undefined> {
    if (waitMs <= 0 || this.nc.isClosed()) return Promise.resolve(undefined);
    const answers = new Reassembler(this.replicaId);
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (copy: ReplicaMessage | undefined) => {
        clearTimeout(timer);
        inbox.unsubscribe();
        resolve(copy);
      };
      const wait = () => {
        clearTimeout(timer);
        timer = setTimeout(() => finish(undefined), waitMs);
      };
      const inbox = this.nc.subscribe(createInbox(), {
        callback: (error, msg) => {
          // The server's "no responders" is a 503 status without data: nobody holds the room.
          if (error || (msg.data.length === 0 && msg.headers?.code === 503)) return finish(undefined);
          const message = answers.receive(msg.data);
          if (message?.kind === ReplicaKind.Copy) return finish(message);
          wait();
        },
      });
      wait();
      try {
        this.nc.publish(this.roomSubject(documentId), new Uint8Array(0), { reply: inbox.getSubject() });
      } catch {
        finish(undefined); // the connection is closing: build the room without a copy
      }
    });
  }

  private send(subject: string, kind: ReplicaKind, revision: number, payload: Uint8Array): void {
    if (this.nc.isClosed()) return;
    const room = Math.max(1024, (this.nc.info?.max_payload ?? FALLBACK_MAX_PAYLOAD) - HEADER - 1024);
    const count = Math.max(1, Math.ceil(payload.length / room));
    this.sequence = (this.sequence + 1) >>> 0;
    for (let index = 0; index < count; index += 1) {
      const chunk = payload.subarray(index * room, (index + 1) * room);
      const data = new Uint8Array(HEADER + chunk.length);
      const view = new DataView(data.buffer);
      data[0] = kind;
      data.set(this.replicaId, 1);
      view.setFloat64(17, revision);
      view.setUint32(25, this.sequence);
      view.setUint16(29, index);
      view.setUint16(31, count);
      data.set(chunk, HEADER);
      this.nc.publish(subject, data);
    }
  }

  close(): void {
    for (const id of [...this.subscriptions.keys()]) this.leave(id);
  }
}
