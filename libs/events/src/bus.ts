import {
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  StorageType,
  type StreamConfig,
} from '@nats-io/jetstream';
import { connect, type NatsConnection, nanos } from '@nats-io/transport-node';
import { createAckInbox } from './ack-inbox.js';
import type { EventEnvelope } from './envelope.js';
import type { Logger } from './logger.js';
import { subjectFor } from './subjects.js';

export interface EventBus {
  readonly stream: string;
  readonly prefix: string;
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  subject(type: string): string;
  /**
   * Creates the stream, or brings an existing one to this configuration. Safe to call from every
   * replica. Answers the stream's creation time as JetStream reports it (it changes when the stream
   * is re-created, e.g. after the broker lost its store).
   */
  ensureStream(): Promise<{ created: string }>;
  /**
   * The stream's creation time; creates the stream when it is missing (an existing one is left as
   * it is). For the checks that run all the time, where ensureStream's updates do not belong.
   */
  streamCreated(): Promise<string>;
  /** Publishes with `Nats-Msg-Id = envelope.id`; `duplicate` is true when the stream had it already. */
  publish(envelope: EventEnvelope): Promise<{ duplicate: boolean }>;
  /** The same for an envelope already serialised (the outbox keeps them as JSON). */
  publishSerialized(type: string, id: string, envelopeJson: string): Promise<{ duplicate: boolean }>;
  /** Throws unless the connection is up and the stream answers; re-creates the stream when it is gone. */
  health(): Promise<void>;
  /** False while the client is disconnected and trying to reconnect. */
  isConnected(): boolean;
  /** Calls `listener` after every reconnect; returns the function that removes it. */
  onReconnect(listener: () => void): () => void;
  /** Calls `listener` whenever this bus had to create the stream; returns the function that removes it. */
  onStreamCreated(listener: () => void): () => void;
  close(): Promise<void>;
}

export interface EventBusOptions {
  natsUrl: string;
  stream: string;
  prefix: string;
  /** Connection name shown in the server's monitoring, e.g. the service name. */
  name: string;
  logger: Logger;
  /** Pause between reconnect attempts (default 1000 ms). */
  reconnectTimeWaitMs?: number;
  /** How long a publish waits for the stream's acknowledgement (default 5000 ms). */
  publishTimeoutMs?: number;
}

/** JetStream's error code for "stream name already in use" (not in the client's constants). */
const STREAM_NAME_IN_USE = 10058;

const DAY_MS = 24 * 60 * 60 * 1000;
export const STREAM_MAX_AGE_MS = 7 * DAY_MS;
export const STREAM_DUPLICATE_WINDOW_MS = 2 * 60 * 1000;

function desiredStreamConfig(stream: string, prefix: string): Partial<StreamConfig> & { name: string } {
  return {
    name: stream,
    subjects: [`${prefix}.>`],
    storage: StorageType.File,
    max_age: nanos(STREAM_MAX_AGE_MS),
    duplicate_window: nanos(STREAM_DUPLICATE_WINDOW_MS),
  };
}

function isNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound;
}

/**
 * Connects to NATS and keeps reconnecting forever: a service starts even when NATS is late, and
 * an outage later only delays events (the outbox keeps them) instead of killing the process.
 */
export async function connectEventBus(opts: EventBusOptions): Promise<EventBus> {
  const { stream, prefix, logger } = opts;
  if (!/^[A-Za-z0-9_-]+$/.test(stream)) throw new Error(`Invalid stream name "${stream}"`);
  if (!/^[A-Za-z0-9_-]+$/.test(prefix)) throw new Error(`Invalid subject prefix "${prefix}"`);

  const nc = await connect({
    servers: opts.natsUrl,
    name: opts.name,
    maxReconnectAttempts: -1,
    waitOnFirstConnect: true,
    reconnectTimeWait: opts.reconnectTimeWaitMs ?? 1000,
    // Otherwise every request (JetStream API calls, a consumer's pulls) captures a stack trace up
    // front in case it fails: CPU on every call, for a trace of client internals.
    noAsyncTraces: true,
  });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc, { timeout: opts.publishTimeoutMs ?? 5000 });
  const acks = createAckInbox(nc, opts.publishTimeoutMs ?? 5000);

  let connected = true;
  const reconnectListeners = new Set<() => void>();
  const streamCreatedListeners = new Set<() => void>();
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') {
        connected = false;
        logger.warn({ server: status.server }, 'NATS disconnected; reconnecting');
      } else if (status.type === 'reconnect') {
        connected = true;
        logger.info({ server: status.server }, 'NATS reconnected');
        for (const listener of reconnectListeners) listener();
      } else if (status.type === 'error') {
        logger.warn({ err: status.error }, 'NATS error');
      }
    }
  })();
  void nc.closed().then(() => {
    connected = false;
  });

  const subject = (type: string) => subjectFor(prefix, type);
  const publishSerialized = (type: string, id: string, envelopeJson: string) =>
    acks.publish(subject(type), envelopeJson, id);

  async function streamCreated(): Promise<string> {
    try {
      return (await jsm.streams.info(stream)).created;
    } catch (error) {
      if (!isNotFound(error)) throw error;
      // The broker lost its store or an operator removed the stream: put it back rather than report
      // NATS down until someone restarts the service (relays then re-send what it held).
      logger.warn({ stream }, 'event stream is gone; re-creating it');
      return (await ensureStream()).created;
    }
  }

  async function ensureStream(): Promise<{ created: string }> {
    const wanted = desiredStreamConfig(stream, prefix);
    try {
      const info = await jsm.streams.info(stream);
      const c = info.config;
      const same =
        c.subjects?.length === 1 &&
        c.subjects[0] === wanted.subjects?.[0] &&
        c.storage === wanted.storage &&
        c.max_age === wanted.max_age &&
        c.duplicate_window === wanted.duplicate_window;
      if (same) return { created: info.created };
      if (c.storage !== wanted.storage) {
        // Storage type cannot change in place; the operator has to move the data deliberately.
        logger.warn({ stream, storage: c.storage }, 'event stream exists with another storage type; leaving it');
        return { created: info.created };
      }
      const updated = await jsm.streams.update(stream, {
        subjects: wanted.subjects,
        max_age: wanted.max_age,
        duplicate_window: wanted.duplicate_window,
      });
      logger.info({ stream }, 'event stream configuration updated');
      return { created: updated.created };
    } catch (error) {
      if (!isNotFound(error)) throw error;
      try {
        const added = await jsm.streams.add(wanted);
        logger.info({ stream, subjects: wanted.subjects }, 'event stream created');
        for (const listener of streamCreatedListeners) listener();
        return { created: added.created };
      } catch (addError) {
        // Another replica created it between our info and add: that is the outcome we wanted.
        if (!(addError instanceof JetStreamApiError && addError.code === STREAM_NAME_IN_USE)) throw addError;
        return { created: (await jsm.streams.info(stream)).created };
      }
    }
  }

  return {
    stream,
    prefix,
    nc,
    js,
    jsm,
    subject,
    ensureStream,
    streamCreated,
    publish(envelope) {
      return publishSerialized(envelope.type, envelope.id, JSON.stringify(envelope));
    },
    publishSerialized,
    async health() {
      if (nc.isClosed()) throw new Error('NATS connection is closed');
      if (!connected) throw new Error('NATS is disconnected');
      await streamCreated();
    },
    isConnected: () => connected && !nc.isClosed(),
    onReconnect(listener) {
      reconnectListeners.add(listener);
      return () => reconnectListeners.delete(listener);
    },
    onStreamCreated(listener) {
      streamCreatedListeners.add(listener);
      return () => streamCreatedListeners.delete(listener);
    },
    async close() {
      reconnectListeners.clear();
      streamCreatedListeners.clear();
      acks.close();
      if (nc.isClosed()) return;
      try {
        await nc.drain();
      } catch {
        await nc.close();
      }
    },
  };
}
