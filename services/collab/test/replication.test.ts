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
});
