import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Config } from '@wiki/config';
import { isEventType, parseEventData } from '@wiki/events';

export interface EventRecorder {
  events: Array<{
    subject: string;
    type: string;
    id: string;
    workspaceId: string | null;
    data: any;
    actorId: string | null;
  }>;
  ofType(type: string): EventRecorder['events'];
  /**
   * What is wrong with the recorded events whose data breaks the contract of their type
   * (@wiki/events), one line each: a producer's test asserts there is nothing.
   */
  contractViolations(): string[];
  close(): Promise<void>;
}

/** Records every event published on the configuration's subjects (core subscription, from now on). */
export async function recordEvents(config: Config): Promise<EventRecorder> {
  const nc: NatsConnection = await connect({ servers: config.natsUrl });
  const events: EventRecorder['events'] = [];
  const sub = nc.subscribe(`${config.eventsPrefix}.>`);
  (async () => {
    for await (const msg of sub) {
      try {
        const envelope = msg.json<{
          id: string;
          type: string;
          workspaceId: string | null;
          actorId: string | null;
          data: unknown;
        }>();
        events.push({ subject: msg.subject, ...envelope });
      } catch {
        // not an envelope (e.g. a JetStream advisory): ignore
      }
    }
  })();
  await nc.flush();
  return {
    events,
    ofType: (type) => events.filter((e) => e.type === type),
    contractViolations: () =>
      events.flatMap((e) => {
        if (!isEventType(e.type)) return [];
        try {
          parseEventData(e.type, e.data);
          return [];
        } catch (error) {
          return [`${e.id}: ${(error as Error).message}`];
        }
      }),
    close: () => nc.close(),
  };
}
