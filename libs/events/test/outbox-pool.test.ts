import { sql } from '@wiki/db';
import { createEventsTestDatabase, type EventsTestDatabase } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishInTx, wakeRelayAfterCommit } from '../src/index.js';

let db: EventsTestDatabase;

beforeAll(async () => {
  db = await createEventsTestDatabase();
});

afterAll(async () => {
  await db?.drop();
});

const event = { type: 'outbox.tested', actorId: null, workspaceId: null, data: {} };

describe('wakeRelayAfterCommit', () => {
  it('wakes the relay once per committed transaction that wrote events, never for others', async () => {
    let wakes = 0;
    const pool = wakeRelayAfterCommit(db.pool, () => {
      wakes += 1;
    });

    await pool.transaction(async (tx) => {
      await publishInTx(tx, event);
      await publishInTx(tx, event);
    });
    expect(wakes).toBe(1);

    await pool.transaction((tx) => tx.query(sql.unsafe`SELECT 1`));
    expect(wakes).toBe(1);

    await expect(
      pool.transaction(async (tx) => {
        await publishInTx(tx, event);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(wakes).toBe(1);
    const pending = await db.pool.oneFirst(sql.unsafe`SELECT count(*)::int AS n FROM event_outbox`);
    expect(pending).toBe(2);

    // Everything else is the pool itself.
    expect(await pool.oneFirst(sql.unsafe`SELECT 41 + 1 AS n`)).toBe(42);
  });
});
