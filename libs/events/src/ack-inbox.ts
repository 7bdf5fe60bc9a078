import { createInbox, headers, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { NoStreamAnsweredError, PublishRefusedError } from './publish-failure.js';

/** JetStream's answer to a publish: a PubAck, or an API error. */
interface PubAckBody {
  stream?: string;
  seq?: number;
  duplicate?: boolean;
  error?: { code?: number; err_code?: number; description?: string };
}

interface Waiting {
  resolve: (ack: { duplicate: boolean }) => void;
  reject: (error: Error) => void;
  deadline: number;
}

export interface AckInbox {
  /** Publishes to the stream with `Nats-Msg-Id`; resolves on the stream's acknowledgement. */
  publish(subject: string, body: string, msgId: string): Promise<{ duplicate: boolean }>;
  close(): void;
}

/**
 * JetStream publishes that share one reply subscription: the client's `js.publish` makes a request
 * per message (an inbox entry, a timer, and when the request ends an Error built for a stack trace
 * nobody reads), which was a tenth of the document service's CPU per created document. Here every
 * publish gets a numbered reply subject under one wildcard subscription, and a sweep fails those
 * not acknowledged within `timeoutMs` (the stream may still have stored them: the relay sends them
 * again and the duplicate window drops the copy).
 */
export function createAckInbox(nc: NatsConnection, timeoutMs: number): AckInbox {
  const prefix = `${createInbox()}.`;
  const waiting = new Map<string, Waiting>();
  let next = 0;

  function settle(msg: Msg): void {
    const token = msg.subject.slice(prefix.length);
    const entry = waiting.get(token);
    if (!entry) return; // timed out already
    waiting.delete(token);
    if (msg.data.length === 0 && msg.headers?.code === 503) {
      entry.reject(new NoStreamAnsweredError());
      return;
    }
    try {
      const ack = msg.json<PubAckBody>();
      if (ack.error)
        entry.reject(
          new PublishRefusedError(ack.error.description ?? 'unknown error', ack.error.err_code ?? ack.error.code),
        );
      else if (!ack.stream) entry.reject(new Error('JetStream answered the publish without a stream'));
      else entry.resolve({ duplicate: ack.duplicate === true });
    } catch (error) {
      entry.reject(error as Error);
    }
  }

  const subscription: Subscription = nc.subscribe(`${prefix}*`, {
    callback: (error, msg) => (error ? undefined : settle(msg)),
  });
  const sweep = setInterval(
    () => {
      const now = Date.now();
      // Deadlines grow in insertion order, which is the Map's order: stop at the first one not due.
      for (const [token, entry] of waiting) {
        if (entry.deadline > now) break;
        waiting.delete(token);
        entry.reject(new Error(`JetStream did not acknowledge the publish within ${timeoutMs} ms`));
      }
    },
    Math.min(500, timeoutMs),
  );
  sweep.unref();

  return {
    publish(subject, body, msgId) {
      return new Promise((resolve, reject) => {
        const token = String(next++);
        const h = headers();
        h.set('Nats-Msg-Id', msgId);
        waiting.set(token, { resolve, reject, deadline: Date.now() + timeoutMs });
        try {
          nc.publish(subject, body, { reply: `${prefix}${token}`, headers: h });
        } catch (error) {
          // E.g. the client's own refusal of a body over the server's max_payload (see publish-failure.ts).
          waiting.delete(token);
          reject(error as Error);
        }
      });
    },
    close() {
      clearInterval(sweep);
      subscription.unsubscribe();
      for (const entry of waiting.values()) entry.reject(new Error('the event bus was closed'));
      waiting.clear();
    },
  };
}
