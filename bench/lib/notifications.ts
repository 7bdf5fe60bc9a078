import { request as httpRequest } from 'node:http';
import { loadavg } from 'node:os';
import { mintDevToken } from '@wiki/auth';
import { createDatabasePool, sql } from '@wiki/db';

/**
 * Gives the bench user `count` notifications straight in the notification service's database (as
 * its event consumer would write them), half of them read, so that the list and count rows read
 * real pages instead of an empty table.
 */
export async function fillNotifications(databaseUrl: string, userId: string, count: number): Promise<void> {
  const pool = await createDatabasePool(databaseUrl, { maximumPoolSize: 1 });
  try {
    await pool.query(sql.unsafe`
      INSERT INTO notifications (id, user_id, type, status, title, message, actor_name, workspace_name,
        document_id, document_title, created_at, read_at, source_key)
      SELECT gen_random_uuid(), ${userId}, 'COMMENT_MENTION', CASE WHEN i % 2 = 0 THEN 'READ' ELSE 'UNREAD' END,
        'Ada mentioned you', 'Ada mentioned you in a comment on "Page ' || i || '"', 'Ada', 'Bench',
        gen_random_uuid(), 'Page ' || i, now() - make_interval(secs => i),
        CASE WHEN i % 2 = 0 THEN now() END, 'bench:' || i
      FROM generate_series(1, ${count}) AS i`);
  } finally {
    await pool.end();
  }
}

/** One Server-Sent Events connection of the bench: events handed to `onEvent` as they are parsed. */
export interface BenchStream {
  close(): void;
}

/**
 * Opens `GET /api/v1/notifications/stream` on a connection of its own (a browser tab's), resolving
 * once the first event (the unread count) has arrived.
 */
export function openStream(
  gatewayUrl: string,
  token: string,
  onEvent: (event: string, data: string) => void = () => {},
): Promise<BenchStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${gatewayUrl}/api/v1/notifications/stream`,
      { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, agent: false },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`stream: ${res.statusCode}`));
          return;
        }
        res.setEncoding('utf8');
        let buffer = '';
        let opened = false;
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end = buffer.indexOf('\n\n');
          while (end !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let event = '';
            let data = '';
            for (const line of block.split('\n')) {
              if (line.startsWith('event: ')) event = line.slice(7);
              else if (line.startsWith('data: ')) data = line.slice(6);
            }
            if (event) {
              onEvent(event, data);
              if (!opened) {
                opened = true;
                resolve({ close: () => req.destroy() });
              }
            }
            end = buffer.indexOf('\n\n');
          }
        });
        res.on('error', () => undefined);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function post<T>(url: string, token: string, body: unknown): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: T }).data;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const round1 = (n: number) => Math.round(n * 10) / 10;

export interface MentionLatency {
  ratePerSec: number;
  durationS: number;
  sent: number;
  failed: number;
  /** Mentions whose notification never reached the stream (within 10 s after the last one). */
  missing: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /**
   * The last leg alone: from the notification's createdAt (the start of the consumer's
   * transaction that made it, Postgres's clock) to its arrival on the stream (this machine's).
   */
  madeToStreamP50Ms: number;
  madeToStreamP99Ms: number;
}

/**
 * Mention → notification on an open stream, under a steady comment load: `author` starts a thread
 * mentioning `mentioned` `ratePerSec` times a second for `durationS` s (open loop: a slow answer
 * does not slow the sending), while one stream of `mentioned` is open through the gateway. The
 * latency runs from just before the comment's POST to the arrival of its `notification` event.
 */
export async function measureMentionToStream(opts: {
  gatewayUrl: string;
  authorToken: string;
  workspaceId: string;
  mentioned: { id: string; name: string; token: string };
  ratePerSec: number;
  durationS: number;
}): Promise<MentionLatency> {
  const { gatewayUrl, authorToken } = opts;
  const document = await post<{ id: string }>(`${gatewayUrl}/api/v1/documents`, authorToken, {
    workspaceId: opts.workspaceId,
    title: 'Mentions',
    content: [],
  });
  const arrivals = new Map<string, number>();
  const lastLeg: number[] = [];
  const stream = await openStream(gatewayUrl, opts.mentioned.token, (event, data) => {
    if (event !== 'notification') return;
    const n = JSON.parse(data) as { createdAt: string; references: { commentThreadId: string | null } };
    if (n.references.commentThreadId) arrivals.set(n.references.commentThreadId, performance.now());
    lastLeg.push(Date.now() - Date.parse(n.createdAt));
  });
  const started = new Map<string, number>();
  let failed = 0;
  const total = Math.round(opts.ratePerSec * opts.durationS);
  const interval = 1000 / opts.ratePerSec;
  const begin = performance.now();
  const posts: Promise<void>[] = [];
  try {
    for (let i = 0; i < total; i++) {
      const due = begin + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const t0 = performance.now();
      posts.push(
        post<{ id: string }>(`${gatewayUrl}/api/v1/comments/documents/${document.id}/threads`, authorToken, {
          anchor: { blockId: `block-${i}`, startOffset: 0, endOffset: 5, selectedText: 'Hello' },
          comment: { content: `Please look @[${opts.mentioned.name}](${opts.mentioned.id}) (${i})` },
        }).then(
          (thread) => {
            started.set(thread.id, t0);
          },
          () => {
            failed++;
          },
        ),
      );
    }
    await Promise.all(posts);
    const deadline = performance.now() + 10_000;
    while ([...started.keys()].some((id) => !arrivals.has(id)) && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    stream.close();
  }
  const latencies = [...started].flatMap(([id, t0]) => (arrivals.has(id) ? [arrivals.get(id)! - t0] : []));
  latencies.sort((a, b) => a - b);
  lastLeg.sort((a, b) => a - b);
  return {
    ratePerSec: opts.ratePerSec,
    durationS: opts.durationS,
    sent: total,
    failed,
    missing: started.size - latencies.length,
    p50Ms: round1(percentile(latencies, 50)),
    p99Ms: round1(percentile(latencies, 99)),
    maxMs: round1(latencies.at(-1) ?? Number.NaN),
    madeToStreamP50Ms: percentile(lastLeg, 50),
    madeToStreamP99Ms: percentile(lastLeg, 99),
  };
}

export interface HeldStreams {
  streams: number;
  users: number;
  /** The notification replica's RSS before the streams opened and while they were all open. */
  rssBeforeMiB: number;
  /** 5 s after the last stream opened: the heap still holds the garbage of opening them. */
  rssWithStreamsMiB: number;
  kibPerStream: number;
  /**
   * 40 s after, streams still open (heartbeats only): V8 hands back the heap it grew once
   * allocation stops (its memory reducer), so this is what holding them costs.
   */
  rssSettledMiB: number;
  kibPerStreamSettled: number;
  gatewayRssBeforeMiB: number;
  gatewayRssWithStreamsMiB: number;
  gatewayRssSettledMiB: number;
  /** What the replica itself counted (its readiness details). */
  openOnReplica: number;
  openSeconds: number;
}

/**
 * `count` streams held open through the gateway by one notification replica, spread over the
 * users of `tokens`, and what they cost the replica in memory (RSS, settled a few seconds after
 * the last one opened).
 */
export async function holdStreams(opts: {
  gatewayUrl: string;
  serviceUrl: string;
  tokens: string[];
  count: number;
  rss: () => { notification: number; gateway: number };
}): Promise<HeldStreams> {
  const before = opts.rss();
  const streams: BenchStream[] = [];
  const began = performance.now();
  try {
    // 50 at a time: the way a thousand tabs come back after a deploy, not all in one instant.
    for (let i = 0; i < opts.count; i += 50) {
      const batch = Array.from({ length: Math.min(50, opts.count - i) }, (_, j) =>
        openStream(opts.gatewayUrl, opts.tokens[(i + j) % opts.tokens.length]),
      );
      streams.push(...(await Promise.all(batch)));
    }
    const openSeconds = round1((performance.now() - began) / 1000);
    await new Promise((r) => setTimeout(r, 5000));
    const during = opts.rss();
    await new Promise((r) => setTimeout(r, 35_000));
    const settled = opts.rss();
    const ready = (await (await fetch(`${opts.serviceUrl}/health/ready`)).json()) as {
      details?: { streams?: { open: number } };
    };
    const perStream = (rss: number) => round1(((rss - before.notification) * 1024) / streams.length);
    return {
      streams: streams.length,
      users: opts.tokens.length,
      rssBeforeMiB: before.notification,
      rssWithStreamsMiB: during.notification,
      kibPerStream: perStream(during.notification),
      rssSettledMiB: settled.notification,
      kibPerStreamSettled: perStream(settled.notification),
      gatewayRssBeforeMiB: before.gateway,
      gatewayRssWithStreamsMiB: during.gateway,
      gatewayRssSettledMiB: settled.gateway,
      openOnReplica: ready.details?.streams?.open ?? -1,
      openSeconds,
    };
  } finally {
    for (const s of streams) s.close();
  }
}

export interface StreamBenchReport {
  date: string;
  /** 1-minute load averages before each measurement: the machine is shared (2 cores). */
  loadAverage: { beforeStreams: number; beforeMentions: number };
  held: HeldStreams;
  mention: MentionLatency;
}

const load1 = () => Math.round(loadavg()[0] * 100) / 100;

/**
 * Issue 13 point 7: `streams` streams held by the notification replica (over 100 users), then the
 * mention → stream latency under a steady comment load. Users sign in with dev tokens (the
 * bench's AUTH_PROVIDER=dev); the mentioned one joins the owner's workspace as a commenter.
 */
export async function streamBench(opts: {
  gatewayUrl: string;
  serviceUrl: string;
  dataDir: string;
  ownerToken: string;
  workspaceId: string;
  streams: number;
  mentionRate: number;
  mentionDurationS: number;
  rss: () => { notification: number; gateway: number };
  log: (message: string) => void;
}): Promise<StreamBenchReport> {
  const { gatewayUrl } = opts;
  const signIn = async (i: number) => {
    const email = `stream-${i}@example.com`;
    const token = await mintDevToken(opts.dataDir, email, `Stream User ${i}`);
    const res = await fetch(`${gatewayUrl}/api/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok) throw new Error(`sign-in of ${email}: ${res.status}`);
    const me = ((await res.json()) as { data: { id: string; name: string } }).data;
    return { id: me.id, name: me.name, email, token };
  };
  const users = [];
  for (let i = 0; i < 100; i++) users.push(await signIn(i));
  const beforeStreams = load1();
  opts.log(`holding ${opts.streams} streams of ${users.length} users through the gateway (load ${beforeStreams})`);
  const held = await holdStreams({
    gatewayUrl,
    serviceUrl: opts.serviceUrl,
    tokens: users.map((u) => u.token),
    count: opts.streams,
    rss: opts.rss,
  });
  opts.log(
    `${held.streams} streams open in ${held.openSeconds} s (the replica counts ${held.openOnReplica}): notification RSS ${held.rssBeforeMiB} → ${held.rssWithStreamsMiB} MiB 5 s after (${held.kibPerStream} KiB per stream), ${held.rssSettledMiB} MiB 40 s after (${held.kibPerStreamSettled} KiB per stream); gateway ${held.gatewayRssBeforeMiB} → ${held.gatewayRssWithStreamsMiB} → ${held.gatewayRssSettledMiB} MiB`,
  );

  const mentioned = users[0];
  const invite = await post<{ inviteLink: string }>(
    `${gatewayUrl}/api/v1/workspaces/${opts.workspaceId}/members/invite`,
    opts.ownerToken,
    { email: mentioned.email, role: 'COMMENTER' },
  );
  await post(`${gatewayUrl}/api/v1/invitations/${invite.inviteLink.split('/invite/')[1]}/accept`, mentioned.token, {});
  await new Promise((r) => setTimeout(r, 2000)); // the membership reaches the comment and notification projections
  const beforeMentions = load1();
  opts.log(
    `mention → stream: ${opts.mentionRate} comments/s with a mention for ${opts.mentionDurationS} s (load ${beforeMentions})`,
  );
  const mention = await measureMentionToStream({
    gatewayUrl,
    authorToken: opts.ownerToken,
    workspaceId: opts.workspaceId,
    mentioned,
    ratePerSec: opts.mentionRate,
    durationS: opts.mentionDurationS,
  });
  opts.log(
    `mention → stream: p50 ${mention.p50Ms} ms, p99 ${mention.p99Ms} ms, max ${mention.maxMs} ms (${mention.sent} sent, ${mention.failed} failed, ${mention.missing} missing); notification made → on the stream: p50 ${mention.madeToStreamP50Ms} ms, p99 ${mention.madeToStreamP99Ms} ms`,
  );
  return { date: new Date().toISOString(), loadAverage: { beforeStreams, beforeMentions }, held, mention };
}
