import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mintDevToken } from '@wiki/auth';
import autocannon from 'autocannon';
import { SMTPServer } from 'smtp-server';
import { type Api, call, retitling } from './endpoints.js';
import { type CpuMeter, type LoadResult, load } from './load.js';
import { createRoots } from './seed.js';

/**
 * Issue 31's rows: e-mails per second through the notification service's queue to an SMTP server
 * on loopback; webhook deliveries per second to a receiver that takes 100 ms to answer; and the edit
 * rate with no webhook and with 20 subscribed to every event, beside a hello-world of the same run.
 * The services run with SMTP_URL at `smtpPort` and WEBHOOK_ALLOWED_HOSTS=127.0.0.1 (bench/run.ts).
 */
export interface OutboundReport {
  mail: { messages: number; postSeconds: number; deliveredSeconds: number; messagesPerSec: number };
  webhooks: {
    receiverDelayMs: number;
    deliveries: number;
    deliveredSeconds: number;
    deliveriesPerSec: number;
  };
  edits: Array<{ connections: number; hello: LoadResult; without: LoadResult; with20: LoadResult }>;
}

export interface OutboundBenchOptions {
  api: Api;
  helloUrl: string;
  dataDir: string;
  workspaceId: string;
  smtpPort: number;
  connections: number[];
  durationS: number;
  /** Mentions made (each one e-mail) and documents created (each one webhook delivery). */
  messages: number;
  deliveries: number;
  cpuMeters: CpuMeter[];
  log: (message: string) => void;
}

const RECEIVER_DELAY_MS = 100;
const WEBHOOKS_FOR_EDITS = 20;

/** An SMTP server on loopback that counts what it accepts (no parsing: the row measures the sender). */
async function startMailSink(port: number) {
  let received = 0;
  let lastAt = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('end', () => {
        received += 1;
        lastAt = Date.now();
        callback();
      });
      stream.resume();
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    received: () => received,
    lastAt: () => lastAt,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A webhook receiver on loopback that answers 200 after `delayMs`, counting deliveries by event. */
async function startReceiver(delayMs: number) {
  const counts = new Map<string, number>();
  let lastAt = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      setTimeout(() => {
        const event = String(req.headers['wiki-event'] ?? '');
        counts.set(event, (counts.get(event) ?? 0) + 1);
        lastAt = Date.now();
        res.writeHead(200).end();
      }, delayMs);
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    count: (event: string) => counts.get(event) ?? 0,
    lastAt: () => lastAt,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function until(what: string, done: () => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`outbound: ${what} did not happen within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `count` requests of `body(i)` to `path`, `concurrency` at a time; all must answer 2xx. */
async function postMany(api: Api, path: string, count: number, concurrency: number, body: (i: number) => unknown) {
  let next = 0;
  const failures: string[] = [];
  const result = await autocannon({
    url: api.gatewayUrl,
    connections: Math.min(concurrency, count),
    amount: count,
    requests: [
      {
        method: 'POST',
        path,
        headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: JSON.stringify(body(next++)) }),
        onResponse: (status, text) => {
          if (status < 200 || status > 299) failures.push(`${status}: ${text.slice(0, 200)}`);
        },
      },
    ],
  });
  if (failures.length > 0 || result.errors + result.timeouts > 0)
    throw new Error(
      `outbound: POST ${path}: ${failures.length} refused (${failures[0] ?? 'none'}), ${result.errors} errors`,
    );
}

export async function benchOutbound(opts: OutboundBenchOptions): Promise<OutboundReport> {
  const { api, log } = opts;
  const sink = await startMailSink(opts.smtpPort);
  const receiver = await startReceiver(RECEIVER_DELAY_MS);
  try {
    // Someone to mention: signs in, is invited as a commenter and accepts.
    const email = `bench-mentioned-${Date.now()}@example.com`;
    const mentionedToken = await mintDevToken(opts.dataDir, email, 'Mentioned Person');
    const mentioned = (
      await call<{ data: { id: string; name: string } }>(api, 'GET', '/api/v1/users/me', undefined, mentionedToken)
    ).data;
    const invited = await call<{ data: { inviteLink: string } }>(
      api,
      'POST',
      `/api/v1/workspaces/${opts.workspaceId}/members/invite`,
      { email, role: 'COMMENTER' },
    );
    await call(
      api,
      'POST',
      `/api/v1/invitations/${invited.data.inviteLink.split('/invite/')[1]}/accept`,
      undefined,
      mentionedToken,
    );
    const [documentId] = await createRoots(api.gatewayUrl, api.token, opts.workspaceId, 1, 1);
    // The invitation was accepted before its e-mail went out, so that e-mail is dropped (its link is
    // gone): after a moment the count below holds the mentions' messages only.
    await new Promise((r) => setTimeout(r, 2000));

    log(`outbound: ${opts.messages} mentions, each e-mailed at once (its default)`);
    const mailBefore = sink.received();
    const mailStart = Date.now();
    await postMany(api, `/api/v1/comments/documents/${documentId}/threads`, opts.messages, 16, (i) => ({
      anchor: { blockId: `block-${i}`, startOffset: 0, endOffset: 5, selectedText: 'Hello' },
      comment: { content: `Please look @[${mentioned.name}](${mentioned.id}) (${i})` },
    }));
    const postSeconds = (Date.now() - mailStart) / 1000;
    await until('every mention e-mail', () => sink.received() - mailBefore >= opts.messages, 300_000);
    const mailSeconds = (sink.lastAt() - mailStart) / 1000;

    log(`outbound: a webhook on document.created answering in ${RECEIVER_DELAY_MS} ms, ${opts.deliveries} documents`);
    const created = await call<{ data: { id: string } }>(
      api,
      'POST',
      `/api/v1/workspaces/${opts.workspaceId}/webhooks`,
      {
        url: receiver.url,
        events: ['document.created'],
      },
    );
    const hookStart = Date.now();
    await createRoots(api.gatewayUrl, api.token, opts.workspaceId, opts.deliveries, 32);
    await until('every webhook delivery', () => receiver.count('document.created') >= opts.deliveries, 600_000);
    const hookSeconds = (receiver.lastAt() - hookStart) / 1000;
    await call(api, 'DELETE', `/api/v1/webhooks/${created.data.id}`);

    const documents = await createRoots(api.gatewayUrl, api.token, opts.workspaceId, 50, 16);
    const edits: OutboundReport['edits'] = [];
    const run = (scenario: string, connections: number) =>
      load(scenario, `${api.gatewayUrl}/api/v1/documents`, {
        connections,
        durationS: opts.durationS,
        cpuMeters: opts.cpuMeters,
        autocannon: retitling(api.token, documents, connections),
      });
    const hello = (connections: number) =>
      load('hello-world', `${opts.helloUrl}/`, { connections, durationS: opts.durationS });
    const withoutRows = [];
    for (const connections of opts.connections) {
      log(`outbound: title edits of 50 documents at ${connections} connections, no webhook`);
      withoutRows.push({
        connections,
        hello: await hello(connections),
        without: await run('PUT title, no webhook', connections),
      });
    }
    const hooks: string[] = [];
    for (let i = 0; i < WEBHOOKS_FOR_EDITS; i++)
      hooks.push(
        (
          await call<{ data: { id: string } }>(api, 'POST', `/api/v1/workspaces/${opts.workspaceId}/webhooks`, {
            url: `${receiver.url}?n=${i}`,
            events: ['*'],
          })
        ).data.id,
      );
    for (const row of withoutRows) {
      log(`outbound: title edits of 50 documents at ${row.connections} connections, ${WEBHOOKS_FOR_EDITS} webhooks`);
      edits.push({ ...row, with20: await run(`PUT title, ${WEBHOOKS_FOR_EDITS} webhooks`, row.connections) });
    }
    for (const id of hooks) await call(api, 'DELETE', `/api/v1/webhooks/${id}`);

    const round = (n: number) => Math.round(n * 10) / 10;
    return {
      mail: {
        messages: opts.messages,
        postSeconds: round(postSeconds),
        deliveredSeconds: round(mailSeconds),
        messagesPerSec: round(opts.messages / mailSeconds),
      },
      webhooks: {
        receiverDelayMs: RECEIVER_DELAY_MS,
        deliveries: opts.deliveries,
        deliveredSeconds: round(hookSeconds),
        deliveriesPerSec: round(opts.deliveries / hookSeconds),
      },
      edits,
    };
  } finally {
    await Promise.all([sink.close(), receiver.close()]);
  }
}

/** The rows as a Markdown table (bench/run.ts logs it and writes the JSON beside the other results). */
export function outboundTable(report: OutboundReport): string {
  const share = (r: LoadResult, hello: LoadResult) =>
    `${((r.requestsPerSec / hello.requestsPerSec) * 100).toFixed(2)} %`;
  return [
    '| row | figure |',
    '|---|---|',
    `| e-mails through the queue to loopback SMTP (${report.mail.messages} mentions) | ${report.mail.messagesPerSec} messages/s (all delivered ${report.mail.deliveredSeconds} s after the first request; requests took ${report.mail.postSeconds} s) |`,
    `| webhook deliveries, receiver answering in ${report.webhooks.receiverDelayMs} ms (${report.webhooks.deliveries} documents created) | ${report.webhooks.deliveriesPerSec} deliveries/s (${report.webhooks.deliveredSeconds} s) |`,
    ...report.edits.map(
      (e) =>
        `| PUT title of 50 documents at ${e.connections} connections: no webhook / ${WEBHOOKS_FOR_EDITS} webhooks on every event | ${e.without.requestsPerSec} req/s (${share(e.without, e.hello)}) / ${e.with20.requestsPerSec} req/s (${share(e.with20, e.hello)}); p99 ${e.without.latencyP99Ms} / ${e.with20.latencyP99Ms} ms |`,
    ),
  ].join('\n');
}
