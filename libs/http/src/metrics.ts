import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';

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
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One (method, route pattern): requests by status class and the latency histogram. */
class RouteSeries {
  readonly byClass = new Float64Array(STATUS_CLASSES.length);
  /** Per bucket, not cumulative (the text adds them up); the last one is +Inf. */
  readonly buckets = new Float64Array(BUCKETS.length + 1);
  sum = 0;
  count = 0;

  record(status: number, seconds: number): void {
    this.byClass[Math.min(Math.max(Math.floor(status / 100) - 1, 0), 4)]++;
    let i = 0;
    while (i < BUCKETS.length && seconds > BUCKETS[i]) i++;
    this.buckets[i]++;
    this.sum += seconds;
    this.count++;
  }
}

/**
 * The Prometheus text of an app (prom-client's registry and the per-route HTTP figures), made by
 * registerMetrics and served by a metrics listener.
 */
const scrapes = new WeakMap<FastifyInstance, () => Promise<{ contentType: string; text: string }>>();
/** The metrics listeners of an app: closed with it. */
const listeners = new WeakMap<FastifyInstance, Set<Server>>();

/**
 * Keeps the figures `/metrics` tells (ARCHITECTURE 5.14): the process's defaults (RSS, CPU, heap,
 * event-loop lag) and per-route HTTP figures under the route pattern, never the raw URL, so label
 * values stay bounded. The app itself serves no `/metrics`: startMetricsListener does, on a port
 * of its own, so no client of the API port (the gateway's is public) ever reads them.
 *
 * The HTTP figures are kept by hand, not in prom-client's Counter and Histogram: those hash the
 * label values on every increment and observe (about 0.9 µs per request, measured), where plain
 * numbers in a per-route object cost a map lookup and a few additions. They are written out on
 * scrape in the same text format.
 */
export function registerMetrics(app: FastifyInstance, service: string): void {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  registries.set(app, registry);
  collectDefaultMetrics({ register: registry });

  const series = new Map<string, Map<string, RouteSeries>>();
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    let byMethod = series.get(route);
    if (!byMethod) {
      byMethod = new Map();
      series.set(route, byMethod);
    }
    let found = byMethod.get(request.method);
    if (!found) {
      found = new RouteSeries();
      byMethod.set(request.method, found);
    }
    found.record(reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  scrapes.set(app, async () => ({
    contentType: registry.contentType,
    text: (await registry.metrics()) + httpText(service, series),
  }));
  // onClose runs once the API's requests are done: a scrape during that drain still answers.
  app.addHook('onClose', async () => {
    await Promise.all([...(listeners.get(app) ?? [])].map(closeServer));
  });
}

export interface MetricsListener {
  /** The port it got (the one asked for, or the free one picked for port 0). */
  port: number;
  /** `http://<host>:<port>`, to which `/metrics` is added. */
  url: string;
}

/**
 * Serves the app's `GET /metrics` on `host:port`, apart from its API: a plain HTTP server that
 * answers that one path (404 elsewhere), without the API's hooks, authentication or rate limits;
 * who may reach it is the network's business (loopback, or the NetworkPolicy in Kubernetes).
 * Port 0 takes any free port: the answer says which. It closes when the app closes.
 */
export async function startMetricsListener(
  app: FastifyInstance,
  { host, port }: { host: string; port: number },
): Promise<MetricsListener> {
  const scrape = scrapes.get(app);
  if (!scrape) throw new Error('this app was not made by createApp: it has no metrics');
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics') return plain(response, 404, 'Not Found');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      return plain(response, 405, 'Method Not Allowed');
    }
    scrape().then(
      ({ contentType, text }) => {
        response.writeHead(200, { 'content-type': contentType });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        app.log.error({ err: error }, 'collecting the metrics failed');
        plain(response, 500, 'Internal Server Error');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let own = listeners.get(app);
  if (!own) {
    own = new Set();
    listeners.set(app, own);
  }
  own.add(server);
  const bound = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return { port: bound, url: `http://${shownHost}:${bound}` };
}

function plain(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  response.end(`${text}\n`);
}

/** Stops listening and ends kept-alive scrape connections, which would hold the close otherwise. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function httpText(service: string, series: Map<string, Map<string, RouteSeries>>): string {
  const requests = [
    '# HELP http_requests_total HTTP requests answered, by method, route pattern and status class',
    '# TYPE http_requests_total counter',
  ];
  const duration = [
    '# HELP http_request_duration_seconds Time from the request arriving to the response being sent, by method and route pattern',
    '# TYPE http_request_duration_seconds histogram',
  ];
  const serviceLabel = `service="${escapeLabel(service)}"`;
  for (const [route, byMethod] of series) {
    for (const [method, s] of byMethod) {
      const labels = `method="${escapeLabel(method)}",route="${escapeLabel(route)}",${serviceLabel}`;
      STATUS_CLASSES.forEach((cls, i) => {
        if (s.byClass[i] > 0) requests.push(`http_requests_total{${labels},status_class="${cls}"} ${s.byClass[i]}`);
      });
      let cumulative = 0;
      BUCKETS.forEach((le, i) => {
        cumulative += s.buckets[i];
        duration.push(`http_request_duration_seconds_bucket{${labels},le="${le}"} ${cumulative}`);
      });
      duration.push(`http_request_duration_seconds_bucket{${labels},le="+Inf"} ${s.count}`);
      duration.push(`http_request_duration_seconds_sum{${labels}} ${s.sum}`);
      duration.push(`http_request_duration_seconds_count{${labels}} ${s.count}`);
    }
  }
  return `\n${requests.join('\n')}\n\n${duration.join('\n')}\n`;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
