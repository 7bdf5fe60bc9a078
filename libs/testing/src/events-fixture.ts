import { connectEventBus, type EventBus, type EventBusOptions } from '@wiki/events';
import { createEventsTestDatabase, type EventsTestDatabase, randomSuffix, TEST_NATS_URL } from './events-database.js';
import { type RecordingLogger, recordingLogger } from './recording-logger.js';

export type EventsFixtureOptions = Partial<
  Pick<EventBusOptions, 'natsUrl' | 'reconnectTimeWaitMs' | 'publishTimeoutMs'>
>;

export interface EventsFixture {
  /** `<NAME>_<suffix>`: a stream of this fixture alone. */
  readonly stream: string;
  /** `<name>_<suffix>`: the subjects' prefix. */
  readonly prefix: string;
  /** The random part of the names, for further streams of the same test. */
  readonly suffix: string;
  readonly logger: RecordingLogger;
  /** Creates the database and connects the bus (creating the stream). */
  start(options?: EventsFixtureOptions): Promise<{ db: EventsTestDatabase; bus: EventBus }>;
  /** Deletes the stream (when its server still answers), closes the bus and drops the database. */
  stop(): Promise<void>;
}

/**
 * The NATS + database set-up of a test of the events machinery: a throw-away events database, a
 * bus on a stream and prefix of its own, and a recording logger. The names and the logger exist at
 * once (for the test's module scope); `start` in beforeAll, `stop` in afterAll, after the test has
 * stopped the relays and consumers it started.
 */
export function eventsFixture(name: string): EventsFixture {
  const suffix = randomSuffix();
  const stream = `${name.toUpperCase()}_${suffix}`;
  const prefix = `${name}_${suffix}`;
  const logger = recordingLogger();
  let db: EventsTestDatabase | undefined;
  let bus: EventBus | undefined;
  return {
    stream,
    prefix,
    suffix,
    logger,
    async start(options = {}) {
      db = await createEventsTestDatabase();
      bus = await connectEventBus({
        natsUrl: TEST_NATS_URL,
        ...options,
        stream,
        prefix,
        name: `${name.replace(/_/g, '-')}-test`,
        logger,
      });
      await bus.ensureStream();
      return { db, bus };
    },
    async stop() {
      await bus?.jsm.streams.delete(stream).catch(() => undefined);
      await bus?.close();
      await db?.drop();
    },
  };
}
