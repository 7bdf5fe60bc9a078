import type { Config } from '@wiki/config';
import { connectEventBus, type EventBus, type EventData, type EventType, type TypedEvent } from '@wiki/events';
import { testEvent } from './event-factories.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A connection to the configuration's event stream, for publishing as another service would. */
export function connectTestBus(config: Config, name = 'test'): Promise<EventBus> {
  return connectEventBus({
    natsUrl: config.natsUrl,
    stream: config.eventsStream,
    prefix: config.eventsPrefix,
    name,
    logger: silent,
  });
}

export interface PublishedEvent<T extends EventType> {
  type: T;
  /** Over valid defaults for the type (see testEvent): consumers parse it against its contract. */
  data?: Partial<EventData<T>>;
  workspaceId?: string | null;
  actorId?: string | null;
  /** When it happened, if not now: an older one is what a late retry looks like to a consumer. */
  occurredAt?: string;
}

/**
 * Publishes one event on the stream the way another service's outbox relay would, through `bus`
 * or, given a configuration, a connection of its own for this one event.
 */
export async function publishEvent<T extends EventType>(
  target: Config | EventBus,
  event: PublishedEvent<T>,
): Promise<TypedEvent<T>> {
  const envelope = testEvent(event.type, { data: event.data, workspaceId: event.workspaceId, actorId: event.actorId });
  if (event.occurredAt) envelope.occurredAt = event.occurredAt;
  if ('publish' in target) {
    await target.publish(envelope);
    return envelope;
  }
  const bus = await connectTestBus(target);
  try {
    await bus.publish(envelope);
    return envelope;
  } finally {
    await bus.close();
  }
}
