interface Held {
  cancel(): void;
}

/**
 * Event streams the fuzzer keeps open for a while instead of cancelling them at once, as browser
 * tabs do: up to `maxPerRoute` of each route at a time, more than a user or key may hold (10
 * notification streams, 10 MCP sessions), so the services' close-oldest limits run under the
 * fuzzer's load. Each is read in the background. A stream the server ends must end cleanly with a
 * `reconnect` event (the limit's notice); one that breaks off or just stops is a fault, reported
 * with the request that opened it.
 */
export class HeldStreams {
  private readonly open = new Map<string, Held[]>();
  private readonly reading = new Set<Promise<void>>();
  /** Faults seen so far, each naming the request that opened its stream. */
  readonly faults: string[] = [];
  /** Streams held, by route. */
  readonly held = new Map<string, number>();
  /** Streams the server ended with a `reconnect` event (a newer one pushed them out), by route. */
  readonly pushedOut = new Map<string, number>();

  constructor(private readonly maxPerRoute: number) {}

  /** Keeps the stream of `response` open; past the maximum, the route's oldest held is cancelled. */
  hold(response: { body: ReadableStream<Uint8Array> | null }, route: string, request: string): void {
    const body = response.body;
    if (!body) return;
    this.held.set(route, (this.held.get(route) ?? 0) + 1);
    const reader = body.getReader();
    let cancelled = false;
    const stream: Held = {
      cancel: () => {
        cancelled = true;
        void reader.cancel().catch(() => undefined);
      },
    };
    const ofRoute = this.open.get(route) ?? [];
    this.open.set(route, ofRoute);
    ofRoute.push(stream);
    if (ofRoute.length > this.maxPerRoute) ofRoute.shift()?.cancel();

    const reading = (async () => {
      const decoder = new TextDecoder();
      // The end of what was read: enough to see an event line that straddles two chunks.
      let tail = '';
      let reconnect = false;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          tail = (tail + decoder.decode(value, { stream: true })).slice(-256);
          reconnect ||= /(^|\n)event: reconnect\n/.test(tail);
        }
      } catch (error) {
        if (!cancelled) this.faults.push(`stream broke off (${(error as Error).message}): ${request}`);
        return;
      }
      if (cancelled) return;
      if (reconnect) this.pushedOut.set(route, (this.pushedOut.get(route) ?? 0) + 1);
      else this.faults.push(`stream ended by the server without a reconnect event: ${request}`);
    })();
    this.reading.add(reading);
    void reading.finally(() => {
      this.reading.delete(reading);
      // Ended: it no longer counts among those held.
      const at = ofRoute.indexOf(stream);
      if (at >= 0) ofRoute.splice(at, 1);
    });
  }

  /** Cancels every stream still held and waits until each reader has stopped. */
  async releaseAll(): Promise<void> {
    for (const ofRoute of this.open.values()) for (const stream of ofRoute.splice(0)) stream.cancel();
    await Promise.all(this.reading);
  }
}
