// `npm run dlq:replay` against real NATS and Postgres: an event that one consumer dead-letters is
// listed, replayed on its subject, applied by that consumer once it works again, skipped by the
// consumer that had applied it, and gone from the dead-letter subject.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEnvelope, type EventBus, type RunningConsumer, startConsumer } from '@wiki/events';
import { type EventsTestDatabase, eventsFixture, TEST_NATS_URL } from '@wiki/testing';
import { sql } from 'slonik';
import { listDeadLetters, replayDeadLetter } from '../../scripts/dlq-replay.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const events = eventsFixture('dlq_replay_test');
const { logger, stream, prefix } = events;

let db: EventsTestDatabase;
let bus: EventBus;
const consumers: RunningConsumer[] = [];

beforeAll(async () => {
  ({ db, bus } = await events.start());
});

afterAll(async () => {
  await Promise.all(consumers.map((c) => c.stop()));
  await events.stop();
});

async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Waits until a consumer has nothing left to take or to acknowledge (a publish is in the stream's
 * count before it returns, so a message published earlier is either pending or acknowledged).
 */
async function caughtUp(name: string): Promise<void> {
  await until(async () => {
    const info = await bus.jsm.consumers.info(stream, name);
    return info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined;
  });
}

const handled = (name: string) =>
  db.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM effects WHERE consumer = ${name}`) as Promise<number>;

describe('dlq:replay', () => {
  it('replays a dead letter to the consumer that failed it, once, and removes it', async () => {
    let failing = true;
    for (const name of ['steady', 'flaky']) {
      consumers.push(
        await startConsumer({
          bus,
          pool: db.pool,
          name,
          types: ['page.noted'],
          logger,
          maxDeliver: 2,
          backoffMs: () => 10,
          handle: async (event, tx) => {
            if (name === 'flaky' && failing) throw new Error('the flaky store is down');
            await tx.query(sql.unsafe`INSERT INTO effects (consumer, event_id) VALUES (${name}, ${event.id})`);
          },
        }),
      );
    }
    const event = createEnvelope({ type: 'page.noted', actorId: null, workspaceId: null, data: { n: 1 } });
    await bus.publish(event);

    const [letter] = await until(async () => {
      const letters = await listDeadLetters(bus, 'flaky');
      return letters.length ? letters : undefined;
    });
    expect(letter).toMatchObject({
      consumer: 'flaky',
      subject: `${prefix}.page.noted`,
      eventId: event.id,
      type: 'page.noted',
      deliveries: '2',
      error: 'the flaky store is down',
    });
    expect(await listDeadLetters(bus, 'steady')).toEqual([]);
    await caughtUp('steady');
    expect(await handled('steady')).toBe(1);
    expect(await handled('flaky')).toBe(0);

    failing = false;
    await replayDeadLetter(bus, letter);
    await caughtUp('flaky');
    await caughtUp('steady');
    expect(await handled('flaky')).toBe(1);
    expect(await handled('steady')).toBe(1); // it had the event: the replay is skipped there
    expect(await listDeadLetters(bus)).toEqual([]);
  });

  it('refuses to replay a letter that names no event subject', async () => {
    const letter = { seq: 1, consumer: 'x', subject: `${prefix}.dlq.other`, error: '', deliveries: '1' };
    await expect(
      replayDeadLetter(bus, { ...letter, eventId: null, type: null, data: new Uint8Array() }),
    ).rejects.toThrow(/names no event subject/);
  });

  it('the command lists, and refuses bad options before connecting', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [join(root, 'scripts', 'run-ts.mjs'), 'scripts/dlq-replay.ts', ...args], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NATS_URL: TEST_NATS_URL, EVENTS_STREAM: stream, EVENTS_PREFIX: prefix },
      });
    const listed = run();
    expect(listed.stderr).toContain('0 dead letter(s)');
    expect(listed.status).toBe(0);
    const bad = run('--replay');
    expect(bad.stderr).toContain('--replay needs --consumer');
    expect(bad.status).toBe(1);
    expect(run('--seq', 'x', '--consumer', 'a').stderr).toContain('--seq: a stream sequence');
  }, 120_000);
});
