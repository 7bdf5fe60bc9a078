import { sql } from '@wiki/db';
import { createDocument, eventually, publishEvent, signInNew } from '@wiki/testing';
import { type DocStack, startDocStack } from './helpers.js';

/** createdByUser/lastEditedByUser come from the users projection of libs/projections (consumer document-users). */
describe('users projection', () => {
  let t: DocStack;

  beforeAll(async () => {
    t = await startDocStack();
  });
  afterAll(async () => {
    await t?.stop();
  });

  const applied = (eventId: string) =>
    eventually(async () =>
      expect(
        await t.pool.exists(sql.unsafe`
          SELECT 1 FROM event_consumed WHERE consumer = 'document-users' AND event_id = ${eventId}`),
      ).toBe(true),
    );

  it('shows a rename, and a late user.upserted from before the rename does not undo it', async () => {
    const rita = await signInNew(t, 'Rita Original');
    const doc = await createDocument(t, rita, { title: 'Whose name' });
    expect(doc.createdByUser).toEqual({ id: rita.id, name: 'Rita Original', avatarUrl: null });
    const read = async () => (await t.call('GET', `/api/v1/documents/${doc.id}`, rita)).body.data;
    // Later than the user.upserted of the sign-in, whenever that one arrives.
    const renamedAt = Date.now() + 60_000;
    const renamed = { id: rita.id, name: 'Rita Renamed', avatarUrl: 'https://img.example.com/rita.png' };

    await publishEvent(t.config, {
      type: 'user.upserted',
      data: { id: rita.id, email: rita.email, name: 'Rita Renamed', avatarUrl: 'https://img.example.com/rita.png' },
      occurredAt: new Date(renamedAt).toISOString(),
    });
    await eventually(async () => expect((await read()).createdByUser).toEqual(renamed));

    // A retry of an event from before the rename, delivered after it.
    const late = await publishEvent(t.config, {
      type: 'user.upserted',
      data: { id: rita.id, email: rita.email, name: 'Rita Original', avatarUrl: null },
      occurredAt: new Date(renamedAt - 30_000).toISOString(),
    });
    await applied(late.id);
    const after = await read();
    expect(after.createdByUser).toEqual(renamed);
    expect(after.lastEditedByUser).toEqual(renamed);
  });
});
