import autocannon from 'autocannon';

export interface LoadResult {
  scenario: string;
  url: string;
  connections: number;
  durationS: number;
  requestsPerSec: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyAvgMs: number;
  totalRequests: number;
  errors: number;
  non2xx: number;
}

/** Runs autocannon against one URL; any error or non-2xx answer is reported, never hidden. */
export async function load(scenario: string, url: string, opts: { connections: number; durationS: number; headers?: Record<string, string> }): Promise<LoadResult> {
  // A short warm-up first (JIT, connection pools, caches), not counted.
  await autocannon({ url, connections: opts.connections, duration: 2, headers: opts.headers });
  const r = await autocannon({ url, connections: opts.connections, duration: opts.durationS, headers: opts.headers });
  return {
    scenario,
    url,
    connections: opts.connections,
    durationS: opts.durationS,
    requestsPerSec: Math.round(r.requests.average),
    latencyP50Ms: r.latency.p50,
    latencyP99Ms: r.latency.p99,
    latencyAvgMs: Math.round(r.latency.average * 100) / 100,
    totalRequests: r.requests.total,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}
