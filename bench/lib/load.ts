import autocannon, { type Options } from 'autocannon';

export interface LoadResult {
  scenario: string;
  url: string;
  connections: number;
  durationS: number;
  requestsPerSec: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** From every response's time (autocannon's histogram has no p95); only when `samples` was asked. */
  latencyP95Ms?: number;
  latencyAvgMs: number;
  totalRequests: number;
  errors: number;
  non2xx: number;
  /** CPU milliseconds each part spent per request during the measured run (when meters were given). */
  cpuMsPerRequest?: Record<string, number>;
}

/** A named reading of CPU seconds used so far (a process, a group of processes). */
export type CpuMeter = [name: string, read: () => number];

export interface LoadOptions {
  connections: number;
  durationS: number;
  headers?: Record<string, string>;
  /** Other autocannon options: a method and body, or prebuilt `requests` and a `setupClient`. */
  autocannon?: Partial<Options>;
  cpuMeters?: CpuMeter[];
  /** Keep each response's time to report p95 (costs the client a little per response). */
  samples?: boolean;
}

/** The value at fraction `p` of sorted response times, in ms to one decimal. */
const at = (sorted: number[], p: number) => Math.round(sorted[Math.ceil(sorted.length * p) - 1] * 10) / 10;

/** Runs autocannon against one URL; any error or non-2xx answer is reported, never hidden. */
export async function load(scenario: string, url: string, opts: LoadOptions): Promise<LoadResult> {
  const options = { url, connections: opts.connections, headers: opts.headers, ...opts.autocannon };
  // A short warm-up first (JIT, connection pools, caches), not counted.
  await autocannon({ ...options, duration: 2 });
  const meters = opts.cpuMeters ?? [];
  const before = meters.map(([, read]) => read());
  const run = autocannon({ ...options, duration: opts.durationS });
  const times: number[] = [];
  if (opts.samples) run.on('response', (_client, _status, _bytes, ms) => times.push(ms));
  const r = await run;
  times.sort((a, b) => a - b);
  const cpu = meters.map(([, read], i) => read() - before[i]);
  return {
    scenario,
    url,
    connections: opts.connections,
    durationS: opts.durationS,
    requestsPerSec: Math.round(r.requests.average),
    latencyP50Ms: r.latency.p50,
    latencyP99Ms: r.latency.p99,
    // With samples, p50 and p99 come from them too (autocannon's are whole milliseconds).
    ...(opts.samples && times.length > 0
      ? { latencyP50Ms: at(times, 0.5), latencyP95Ms: at(times, 0.95), latencyP99Ms: at(times, 0.99) }
      : {}),
    latencyAvgMs: Math.round(r.latency.average * 100) / 100,
    totalRequests: r.requests.total,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    ...(meters.length > 0
      ? {
          cpuMsPerRequest: Object.fromEntries(
            meters.map(([name], i) => [name, Math.round((cpu[i] * 1e6) / Math.max(1, r.requests.total)) / 1000]),
          ),
        }
      : {}),
  };
}
