import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { eventually, uniqueName } from '@wiki/testing';
import { ReplicaKind, type ReplicaMessage, Replication } from '../src/replication.js';

describe('replication over NATS core subjects', () => {
  let nc: NatsConnection;
  const prefix = uniqueName().replace(/_/g, '-');

  beforeAll(async () => {
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  });
  afterAll(() => nc?.close());

  it('delivers to the other replicas only, chunking what exceeds max_payload, in order', async () => {
    const got: Array<{ doc: string; message: ReplicaMessage }> = [];
    const mine: ReplicaMessage[] = [];
    const a = new Replication(nc, prefix, (_doc, message) => mine.push(message));
    const b = new Replication(nc, prefix, (doc, message) => got.push({ doc, message }));
    a.join('doc-1');
    b.join('doc-1');
    b.join('doc-2');
    await nc.flush();

    const big = randomBytes(nc.info!.max_payload * 2 + 12_345);
    const small = randomBytes(10);
    a.publish('doc-1', ReplicaKind.Update, 3, big);
    a.publish('doc-1', ReplicaKind.Awareness, 4, small);
    a.publish('doc-3', ReplicaKind.Update, 4, small); // nobody holds doc-3
    await eventually(() => expect(got.length).toBe(2));
    expect(got[0]!.doc).toBe('doc-1');
    expect(got[0]!.message.kind).toBe(ReplicaKind.Update);
    expect(got[0]!.message.revision).toBe(3);
    expect(Buffer.from(got[0]!.message.payload).equals(big)).toBe(true);
    expect(got[1]!.message).toMatchObject({ kind: ReplicaKind.Awareness, revision: 4 });
    expect(Buffer.from(got[1]!.message.payload).equals(small)).toBe(true);
    expect(mine).toEqual([]); // a replica does not hear itself

    b.leave('doc-1');
    await nc.flush();
    a.publish('doc-1', ReplicaKind.Update, 5, small);
    b.publish('doc-2', ReplicaKind.SyncRequest, 5, small);
    await nc.flush();
    // b left doc-1 and a never joined doc-2: a flush round trip later, nothing more arrived.
    expect(got.length).toBe(2);
    a.close();
    b.close();
  });

  it('answers a replica about to open a room with a copy from one holding it, chunked; nobody holds it: none', async () => {
    const big = randomBytes(nc.info!.max_payload + 4_321);
    const holding = new Map<string, { revision: number; payload: Uint8Array }>([
      ['doc-1', { revision: 7, payload: big }],
    ]);
    const holder = new Replication(
      nc,
      prefix,
      () => undefined,
      (doc) => holding.get(doc),
    );
    const asker = new Replication(nc, prefix, () => undefined);
    holder.join('doc-1');
    holder.join('doc-2'); // joined, but it has no copy to give (e.g. the room is closing)
    await nc.flush();

    const copy = await asker.copyFromPeers('doc-1', 10_000);
    expect(copy?.kind).toBe(ReplicaKind.Copy);
    expect(copy?.revision).toBe(7);
    expect(Buffer.from(copy!.payload).equals(big)).toBe(true);
    // No replica holds doc-3: NATS says so at once, long before the wait (beyond the test's timeout) ends.
    expect(await asker.copyFromPeers('doc-3', 120_000)).toBeUndefined();
    // A holder without a copy does not answer: the asker stops waiting.
    expect(await asker.copyFromPeers('doc-2', 100)).toBeUndefined();
    // 0 does not ask at all.
    expect(await asker.copyFromPeers('doc-1', 0)).toBeUndefined();

    holder.leave('doc-1');
    await nc.flush();
    expect(await asker.copyFromPeers('doc-1', 120_000)).toBeUndefined();
    holder.close();
    asker.close();
  });
});
