/**
 * Wakes the outbox relay after a write, at most once per `intervalMs`. A lone write is sent at
 * once; under load the wake-ups coalesce so that each relay batch (a transaction of its own, a
 * claim and a mark-sent query) carries many events instead of one or two, at the price of at
 * most `intervalMs` of extra delay.
 */
export function coalescedKick(kick: () => void, intervalMs: number): () => void {
  let scheduled = false;
  let last = 0;
  return () => {
    if (scheduled) return;
    scheduled = true;
    const wait = Math.max(0, last + intervalMs - Date.now());
    const timer = setTimeout(() => {
      scheduled = false;
      last = Date.now();
      kick();
    }, wait);
    timer.unref();
  };
}
