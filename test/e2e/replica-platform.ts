import type { Config, ServiceName } from '@wiki/config';
import { METRICS_PORT_OFFSET, SERVICE_NAMES } from '@wiki/config';
import {
  cleanupConfig,
  gatewayClient,
  isolatedConfig,
  type JwksServer,
  replicaPort,
  type Stack,
  startJwks,
} from '@wiki/testing';
import { startSmtp, type TestSmtp } from '../../services/notification/test/smtp.js';
import { type Launch, launchPlatform } from './launch.js';

/**
 * What issue 31's behaviours need of the launch: mail through a loopback SMTP server, webhooks to
 * a loopback receiver, and short enough debounce and retry delays to wait out in a test.
 */
export const REPLICA_SETTINGS = {
  /** WATCH_DEBOUNCE_S: long enough for three edits and a look at the result on a busy machine. */
  watchDebounceS: 8,
  /** WEBHOOK_RETRY_BASE_MS: a receiver's outage is retried within a second or two. */
  webhookRetryBaseMs: 200,
  /** MAIL_BACKOFF_MS: a send that failed is tried again soon. */
  mailBackoffMs: 200,
} as const;

/** The launcher names a further replica `<service>-2`; the first keeps the service's name. */
export type ReplicaName = string;

/**
 * The platform as `npm start` runs it with REPLICAS=2, seen by a test: a Stack (so the services'
 * own test helpers work against it) plus what tells the two replicas of a service apart.
 */
export interface ReplicaPlatform {
  stack: Stack;
  launch: Launch;
  /** The SMTP server every replica sends through (SMTP_URL), started before the launch. */
  smtp: TestSmtp;
  /** The first replica's port of each service; the second listens 100 above. */
  ports: Record<ServiceName, number>;
  /**
   * Both replicas of `service`: name as the launcher prefixes its log lines, base URL, and the base
   * URL of its metrics listener (its port + 1000: METRICS_PORT is the gateway's alone under npm start).
   */
  replicas(service: ServiceName): Array<{ name: ReplicaName; url: string; metricsUrl: string }>;
  /** The value of a Prometheus gauge or counter (summed over its labels) on each replica of `service`. */
  metric(service: ServiceName, name: string): Promise<number[]>;
  /**
   * Which replicas logged a completed request for `url` (path without query) carrying one of
   * `requestIds`, one entry per log line (a name twice means two requests there).
   */
  servedBy(service: ServiceName, url: string, requestIds: string[]): ReplicaName[];
  /** Which replicas logged `message` with a field that includes `needle` (e.g. a document id). */
  logged(service: ServiceName, message: string, needle: string): ReplicaName[];
  stop(): Promise<void>;
}

/** The launcher's log lines of `service`'s replicas, as [replica name, parsed pino object]. */
function logLines(output: string, service: ServiceName): Array<[ReplicaName, Record<string, unknown>]> {
  const names = new Set([service, `${service}-2`]);
  const lines: Array<[ReplicaName, Record<string, unknown>]> = [];
  for (const line of output.split('\n')) {
    const bar = line.indexOf(' | ');
    if (bar === -1) continue;
    const name = line.slice(0, bar).trim();
    if (!names.has(name)) continue;
    try {
      lines.push([name, JSON.parse(line.slice(bar + 3)) as Record<string, unknown>]);
    } catch {
      // not a pino line (a stack trace, a warning of Node's)
    }
  }
  return lines;
}

/** Sums the samples of metric `name` in Prometheus text (every label set). */
export function sumOf(text: string, name: string): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) total += Number(line.split(' ').at(-1));
  }
  return total;
}

/**
 * Launches the whole platform with `npm start` at REPLICAS=2 (real processes from dist/, tokens
 * of a JWKS server as an OIDC provider would sign them), each service on a port whose +100 is
 * free for its second replica, and info logs (which replica served what is read from them).
 */
export async function launchReplicaPlatform(): Promise<ReplicaPlatform> {
  const jwks: JwksServer = await startJwks();
  const config: Config = isolatedConfig(jwks);
  let launch: Launch | undefined;
  let smtp: TestSmtp | undefined;
  const stop = async () => {
    if (launch && launch.child.exitCode === null) {
      // SIGTERM: the launcher stops all of its children before it exits.
      const exited = new Promise((resolve) => launch?.child.once('exit', resolve));
      launch.child.kill('SIGTERM');
      await exited;
    }
    await jwks.close();
    await smtp?.close();
    await cleanupConfig(config);
  };
  try {
    const taken = new Set<number>();
    const ports = {} as Record<ServiceName, number>;
    const env: Record<string, string> = { REPLICAS: '2', LOG_LEVEL: 'info' };
    for (const service of SERVICE_NAMES) {
      ports[service] = await replicaPort(taken);
      env[`${service.toUpperCase()}_PORT`] = String(ports[service]);
    }
    // The mail server's port from the same picks (no part takes it), listening before any replica sends.
    const mail = await startSmtp(await replicaPort(taken));
    smtp = mail;
    env.SMTP_URL = mail.url;
    env.MAIL_BACKOFF_MS = String(REPLICA_SETTINGS.mailBackoffMs);
    env.WATCH_DEBOUNCE_S = String(REPLICA_SETTINGS.watchDebounceS);
    // The test's webhook receivers listen on loopback, which only this lets a webhook target.
    env.WEBHOOK_ALLOWED_HOSTS = '127.0.0.1';
    env.WEBHOOK_RETRY_BASE_MS = String(REPLICA_SETTINGS.webhookRetryBaseMs);
    // The gateway's ports from the same picks, so that none is another part's (or its metrics').
    const gatewayPort = await replicaPort(taken);
    env.PORT = String(gatewayPort);
    env.METRICS_PORT = String(gatewayPort + METRICS_PORT_OFFSET);
    launch = await launchPlatform(config, jwks, env);
    const started = launch;
    const gatewayUrl = started.gatewayUrl;
    const serviceUrls = Object.fromEntries(
      SERVICE_NAMES.map((service) => [service, `http://127.0.0.1:${ports[service]}`]),
    ) as Record<ServiceName, string>;

    const { tokenFor, request, signIn } = gatewayClient(gatewayUrl, jwks);
    const replicas = (service: ServiceName) =>
      [service, `${service}-2`].map((name, i) => {
        const port = ports[service] + i * 100;
        return { name, url: `http://127.0.0.1:${port}`, metricsUrl: `http://127.0.0.1:${port + METRICS_PORT_OFFSET}` };
      });
    const metricsUrls: Stack['metricsUrls'] = Object.fromEntries(
      SERVICE_NAMES.map((service) => [service, replicas(service)[0].metricsUrl]),
    );
    metricsUrls.gateway = started.gatewayMetricsUrl;
    const stack: Stack = { config, gatewayUrl, jwks, serviceUrls, metricsUrls, tokenFor, signIn, request, stop };

    return {
      stack,
      launch: started,
      smtp: mail,
      ports,
      replicas,
      async metric(service, name) {
        return Promise.all(
          replicas(service).map(async ({ metricsUrl }) => {
            const res = await fetch(`${metricsUrl}/metrics`);
            if (res.status !== 200) throw new Error(`${metricsUrl}/metrics answered ${res.status}`);
            return sumOf(await res.text(), name);
          }),
        );
      },
      servedBy(service, url, requestIds) {
        const ids = new Set(requestIds);
        return logLines(started.output(), service)
          .filter(([, line]) => line.msg === 'request completed' && line.url === url && ids.has(String(line.requestId)))
          .map(([name]) => name);
      },
      logged(service, message, needle) {
        return logLines(started.output(), service)
          .filter(([, line]) => line.msg === message && JSON.stringify(line).includes(needle))
          .map(([name]) => name);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
