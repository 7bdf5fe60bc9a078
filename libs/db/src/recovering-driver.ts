import { EventEmitter } from 'node:events';
import { createPgDriverFactory } from '@slonik/pg-driver';
import type { DriverClient, DriverFactory } from 'slonik';

/**
 * slonik's pg driver with one repair. When a connection is cut in the middle of a query (Postgres
 * crashed or was stopped with `immediate`), node-postgres reports the lost socket before it fails
 * the query; slonik then starts destroying the client while the query is still active, the query's
 * rejection makes that destroy fail, and the client stays "pending destroy" for good: it is never
 * removed from the pool yet still counts towards its size. After one such crash with the pool's
 * connections busy, every later query waits for a free connection for ever (slonik 47.3.2; see
 * docs/DECISIONS.md, "Dependency outages").
 *
 * Here a client whose destroy (or release, which waits for that destroy) failed is reported to the
 * pool as destroyed, so the pool forgets it and opens a new connection when it needs one.
 */
export function recoveringPgDriverFactory(): DriverFactory {
  const pgDriver = createPgDriverFactory();
  return async (options) => {
    const driver = await pgDriver(options);
    return { createClient: async () => forgettableWhenDestroyFails(await driver.createClient()) };
  };
}

// biome-ignore lint/suspicious/noExplicitAny: an EventEmitter listener, as node:events types it
type Listener = (...args: any[]) => void;
/** The client's typed on/off, seen as plain EventEmitter methods. */
type Subscribe = (event: string, listener: Listener) => unknown;

function forgettableWhenDestroyFails(client: DriverClient): DriverClient {
  /** The pool's `destroy` listeners, told here when slonik's own destroy failed. */
  const destroyed = new EventEmitter();
  let forgotten = false;

  const forgetIfDestroyFailed = (error: unknown): never => {
    if (!forgotten && client.state() === 'PENDING_DESTROY') {
      forgotten = true;
      destroyed.emit('destroy');
    }
    throw error;
  };
  const clientOn = client.on as unknown as Subscribe;
  const clientOff = client.off as unknown as Subscribe;
  const on: Subscribe = (event, listener) => {
    if (event === 'destroy') destroyed.on(event, listener);
    return clientOn(event, listener);
  };
  const off: Subscribe = (event, listener) => {
    if (event === 'destroy') destroyed.off(event, listener);
    return clientOff(event, listener);
  };

  return {
    ...client,
    destroy: () => client.destroy().catch(forgetIfDestroyFailed),
    release: () => client.release().catch(forgetIfDestroyFailed),
    state: () => (forgotten ? 'DESTROYED' : client.state()),
    on: on as unknown as DriverClient['on'],
    off: off as unknown as DriverClient['off'],
    removeListener: off as unknown as DriverClient['removeListener'],
  };
}
