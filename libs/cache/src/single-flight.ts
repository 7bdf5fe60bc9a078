/**
 * Runs `load` once per key at a time: concurrent callers for the same key share one promise
 * (a user's first burst of parallel requests makes one find-or-create call, not ten).
 */
export class SingleFlight<V> {
  private readonly inFlight = new Map<string, Promise<V>>();

  run(key: string, load: () => Promise<V>): Promise<V> {
    const running = this.inFlight.get(key);
    if (running) return running;
    const promise = load().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }
}
