import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * One registry per app, not prom-client's global one: tests run several services in one process,
 * and each `/metrics` must tell about its own app only.
 */
const registries = new WeakMap<FastifyInstance, Registry>();

/** The app's metric registry (made by createApp): parts of a service add their gauges to it. */
export function metricsOf(app: FastifyInstance): Registry {
  const registry = registries.get(app);
  if (!registry) throw new Error('this app was not made by createApp: it has no metrics registry');
  return registry;
}

export interface ScrapeMetricOptions {
  name: string;
  help: string;
  /** With a label: `read` answers one value per label value (e.g. `{ idle: 3, acquired: 1 }`). */
  label?: string;
  read: () => number | Record<string, number> | Promise<number | Record<string, number>>;
}

/**
 * A gauge whose value is read when Prometheus scrapes, never on the request path. A read that
 * fails leaves the gauge out of that scrape (logged) instead of failing the whole scrape.
 */
export function addScrapeGauge(app: FastifyInstance, options: ScrapeMetricOptions): void {
  new Gauge({
    name: options.name,
    help: options.help,
    labelNames: options.label ? [options.label] : [],
    registers: [metricsOf(app)],
    async collect() {
      this.reset();
      await readInto(app, options, (labels, value) => this.set(labels, value));
    },
  });
}

/** A counter kept elsewhere as a plain number (a library without a metrics client), read on scrape. */
export function addScrapeCounter(app: FastifyInstance, options: ScrapeMetricOptions): void {
  new Counter({
    name: options.name,
    help: options.help,
    labelNames: options.label ? [options.label] : [],
    registers: [metricsOf(app)],
    async collect() {
      this.reset();
      await readInto(app, options, (labels, value) => this.inc(labels, value));
    },
  });
}

async function readInto(
  app: FastifyInstance,
  { name, label, read }: ScrapeMetricOptions,
  put: (labels: Record<string, string>, value: number) => void,
): Promise<void> {
  let value: number | Record<string, number>;
  try {
    value = await read();
  } catch (error) {
    app.log.warn({ err: error, metric: name }, 'reading a metric failed');
    return;
  }
  if (typeof value === 'number') put({}, value);
  else if (label) for (const [key, v] of Object.entries(value)) put({ [label]: key }, v);
}

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
/** Requests that matched no route share one label value, so that scanners cannot grow the series. */
const UNMATCHED = 'unmatched';

interface RouteSeries {
  duration: Histogram.Internal<'method' | 'route'>;
  byClass: Array<Counter.Internal | undefined>;
}

/**
 * `GET /metrics` (Prometheus text) with the process's defaults (RSS, CPU, heap, event-loop lag)
 * and per-route HTTP figures: the route pattern, never the raw URL, so label values stay bounded.
 * No authentication: it is on the service's own port, which only the gateway and the cluster
 * reach; the gateway proxies `/api/v1/**` alone, so it is never reachable through it.
 */
export function registerMetrics(app: FastifyInstance, service: string): void {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  registries.set(app, registry);
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status class',
    labelNames: ['method', 'route', 'status_class'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request arriving to the response being sent, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  // The label children are looked up once per (route, method) and kept: the hot path then does a
  // map lookup, an increment and an observe, without building a labels object per request.
  const series = new Map<string, Map<string, RouteSeries>>();
  const seriesOf = (method: string, route: string): RouteSeries => {
    let byMethod = series.get(route);
    if (!byMethod) {
      byMethod = new Map();
      series.set(route, byMethod);
    }
    let found = byMethod.get(method);
    if (!found) {
      found = { duration: duration.labels(method, route), byClass: [] };
      byMethod.set(method, found);
    }
    return found;
  };

  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const found = seriesOf(request.method, request.routeOptions.url ?? UNMATCHED);
    const index = Math.min(Math.max(Math.floor(reply.statusCode / 100) - 1, 0), 4);
    let counter = found.byClass[index];
    if (!counter) {
      counter = requests.labels(request.method, request.routeOptions.url ?? UNMATCHED, STATUS_CLASSES[index]);
      found.byClass[index] = counter;
    }
    counter.inc();
    found.duration.observe(reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const text = await registry.metrics();
    return reply.type(registry.contentType).send(text);
  });
}
