// The slice of autocannon's API the benchmarks use (the package ships no types).
declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
  }
  interface Result {
    requests: Histogram & { total: number; sent: number };
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
    '2xx': number;
  }
  export interface RequestSpec {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (request: RequestSpec, context: Record<string, unknown>) => RequestSpec;
    onResponse?: (
      status: number,
      body: string,
      context: Record<string, unknown>,
      headers: Record<string, string>,
    ) => void;
  }
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    pipelining?: number;
    headers?: Record<string, string>;
    method?: string;
    body?: string;
    requests?: RequestSpec[];
    setupClient?: (client: { setRequests(requests: RequestSpec[]): void }) => void;
  }
  /** A run: awaited for its result, and an emitter of each response (its time in ms). */
  interface Instance extends Promise<Result> {
    on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): this;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
