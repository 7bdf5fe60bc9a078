export type { EventEnvelope, NewEvent } from './envelope.js';
export { assertEventType, createEnvelope, parseEnvelope } from './envelope.js';
export type { Logger } from './logger.js';
export { eventsMigrations } from './migrations.js';
export {
  countPending,
  DEFAULT_CONSUMED_RETENTION_MS,
  DEFAULT_SENT_RETENTION_MS,
  publishInTx,
  pruneEvents,
  type PruneOptions,
} from './outbox.js';
export { connectEventBus, STREAM_DUPLICATE_WINDOW_MS, STREAM_MAX_AGE_MS, type EventBus, type EventBusOptions } from './bus.js';
export { startOutboxRelay, type OutboxRelay, type OutboxRelayOptions } from './relay.js';
export { defaultBackoffMs, DLQ_HEADERS, startConsumer, type ConsumerOptions, type RunningConsumer } from './consumer.js';
export { isConnectionError } from './transient.js';
export { dlqSubject, filterSubjectFor, isDlqSubject, matchesAnyType, matchesType, subjectFor, typeOfSubject, wantsSubject } from './subjects.js';
