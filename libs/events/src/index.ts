export { ACK_FLOOR_MAX_AGE_MS, AckFloor, type AckFloorOptions } from './ack-floor.js';
export {
  connectEventBus,
  type EventBus,
  type EventBusOptions,
  STREAM_DUPLICATE_WINDOW_MS,
  STREAM_MAX_AGE_MS,
} from './bus.js';
export {
  type ConsumerCounts,
  type ConsumerOptions,
  consumerCounts,
  DLQ_HEADERS,
  defaultBackoffMs,
  type RunningConsumer,
  type StreamPosition,
  startConsumer,
} from './consumer.js';
export {
  checkContract,
  DOCUMENT_CHANGES,
  type DocumentChange,
  EventContractError,
  type EventData,
  type EventFor,
  type EventType,
  eventContracts,
  INVITATION_ROLES,
  isEventType,
  newEvent,
  parseEventData,
  ROLES,
  type TypedEvent,
} from './contracts.js';
export type { EventEnvelope, NewEvent } from './envelope.js';
export { assertEventType, createEnvelope, parseEnvelope } from './envelope.js';
export {
  capText,
  capUnderPayload,
  configureEventMaxBytes,
  DEFAULT_EVENT_MAX_BYTES,
  EVENT_MAX_IDS,
  EVENT_TEXT_MAX_BYTES,
  EventTooLargeError,
  eventMaxBytes,
  serializeWithinCap,
  splitIds,
} from './limits.js';
export type { Logger } from './logger.js';
export { eventsMigrations } from './migrations.js';
export {
  defaultEmailMode,
  EMAIL_MODES,
  type EmailMode,
  type EmailPreferences,
  NOTIFICATION_TYPES,
  type NotificationType,
  resolveEmailPreferences,
} from './notification-types.js';
export {
  checkEnvelopeSize,
  DEFAULT_CONSUMED_RETENTION_MS,
  DEFAULT_SENT_RETENTION_MS,
  insertEnvelopesSql,
  outboxBacklog,
  type PruneOptions,
  pruneEvents,
  publishInTx,
} from './outbox.js';
export { noteEventsWritten, wakeRelayAfterCommit } from './outbox-pool.js';
export { isPermanentPublishFailure, NoStreamAnsweredError, PublishRefusedError } from './publish-failure.js';
export { type OutboxRelay, type OutboxRelayOptions, startOutboxRelay } from './relay.js';
export { countSetAside } from './relay-rows.js';
export {
  dlqSubject,
  filterSubjectFor,
  isDlqSubject,
  liveSubject,
  matchesAnyType,
  matchesType,
  subjectFor,
  THREAD_COUNTS_TOPIC,
  typeOfSubject,
  wantsSubject,
} from './subjects.js';
export { isConnectionError } from './transient.js';
