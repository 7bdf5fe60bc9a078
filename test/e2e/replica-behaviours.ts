import { randomBytes } from 'node:crypto';
import {
  type CollabEditor,
  collabUrl,
  connectEditor,
  createDocument,
  createWorkspace,
  eventually,
  expectStatus,
  paragraph,
  paragraphWithId,
  restDocument,
  type SignedInUser,
  type Stack,
  signInNew,
  typeParagraph,
  uniqueEmail,
  workspaceWith,
} from '@wiki/testing';
import type { ParsedMail } from 'mailparser';
import { expect } from 'vitest';
import type { TestSmtp } from '../../services/notification/test/smtp.js';
import { SseStream } from '../../services/notification/test/sse.js';
import { type Received, verifySignature, WebhookReceiver } from '../../services/notification/test/webhook-receiver.js';
import { REPLICA_SETTINGS, type ReplicaPlatform } from './replica-platform.js';

/**
 * What issues 19, 26 (history) and 31 (e-mail, watching, webhooks) ask of two replicas, each proven end to end through the gateway of a platform
 * that `npm start` launched at REPLICAS=2 (replica-platform.ts). Each behaviour makes its own
 * users and documents, so they run in any order on one launch; which replica did what is read
 * from the replicas' own /metrics and from the launcher's log prefixes (`mcp`, `mcp-2`).
 */

const tag = () => randomBytes(4).toString('hex');

// The notification tests' helpers (services/notification/test/helpers.ts) import the services'
// code to start a stack in-process; the three used here are small enough to have without it, so
// the subset in start-replicas.test.ts loads no service. The MCP client is imported where used,
// for the same reason.
const mention = (user: SignedInUser) => `@[${user.name}](${user.id})`;

async function createThread(stack: Stack, as: SignedInUser, documentId: string, content: string): Promise<string> {
  const res = await stack.request('POST', `/api/v1/comments/documents/${documentId}/threads`, {
    token: as.token,
    body: { anchor: { blockId: 'block-1', startOffset: 0, endOffset: 5, selectedText: 'Hello' }, comment: { content } },
  });
  return expectStatus(res, 201, 'create a comment thread').body.data.id;
}

/** The threads of the user's COMMENT_MENTION notifications (one page of 100), one entry per notification. */
async function mentionedIn(stack: Stack, user: SignedInUser): Promise<string[]> {
  const res = await stack.request('GET', '/api/v1/notifications?size=100', { token: user.token });
  const page = expectStatus(res, 200, `notifications of ${user.email}`).body.data.content as MentionNotification[];
  return page.filter((n) => n.type === 'COMMENT_MENTION').map((n) => n.references.commentThreadId);
}

interface MentionNotification {
  type: string;
  references: { commentThreadId: string };
}

/** Waits until every replica of `service` has done what the consumer `lagMetric` counts: nothing pending. */
async function consumersCaughtUp(p: ReplicaPlatform, service: 'notification' | 'search'): Promise<void> {
  await eventually(async () => expect(await p.metric(service, 'events_consumer_lag_messages')).toEqual([0, 0]), {
    timeoutMs: 20_000,
    intervalMs: 200,
  });
}

/**
 * 1. One notification per mention: both notification replicas share the durable consumer, so a
 * mention's event is handled by one of them, once. Several mentions spread over both replicas;
 * a later sentinel mention and both replicas' consumer lag at 0 show that a double would have
 * arrived by the time the notifications are counted.
 */
export async function oneNotificationPerMention(p: ReplicaPlatform): Promise<void> {
  const { stack } = p;
  const [ada, bob] = await Promise.all([signInNew(stack, 'Ada Mentioner'), signInNew(stack, 'Bob Mentioned')]);
  const ws = await workspaceWith(stack, ada, [[bob, 'EDITOR']]);
  const doc = await createDocument(stack, ada, { workspaceId: ws.id, title: 'Mentions' });
  const threads: string[] = [];
  for (let i = 0; i < 6; i++) threads.push(await createThread(stack, ada, doc.id, `Look ${i} ${mention(bob)}`));
  const sentinel = await createThread(stack, ada, doc.id, `Sentinel ${mention(bob)}`);

  const mentionsOf = () => mentionedIn(stack, bob);
  await eventually(async () => expect(await mentionsOf()).toContain(sentinel), { timeoutMs: 20_000, intervalMs: 100 });
  await consumersCaughtUp(p, 'notification');
  expect((await mentionsOf()).sort()).toEqual([...threads, sentinel].sort());
}

/**
 * 2. The SSE stream works whichever replica holds it and whichever replicas take the writes:
 * streams are opened until both notification replicas hold at least one, then each stream gets
 * each new notification exactly once.
 */
export async function notificationStreamsOnBothReplicas(p: ReplicaPlatform): Promise<void> {
  const { stack } = p;
  const [ada, cy] = await Promise.all([signInNew(stack, 'Ada Writer'), signInNew(stack, 'Cy Streamer')]);
  const ws = await workspaceWith(stack, ada, [[cy, 'EDITOR']]);
  const doc = await createDocument(stack, ada, { workspaceId: ws.id, title: 'Streamed' });
  const streams: SseStream[] = [];
  try {
    const before = await p.metric('notification', 'notification_sse_streams_open');
    // Round robin alternates the gateway's picks, but other requests move its cursor too.
    for (let i = 0; i < 8; i++) {
      const stream = await SseStream.open(`${stack.gatewayUrl}/api/v1/notifications/stream`, {
        authorization: `Bearer ${cy.token}`,
      });
      streams.push(stream);
      await stream.count(0);
      const now = await p.metric('notification', 'notification_sse_streams_open');
      if (now.every((open, replica) => open > before[replica])) break;
    }
    const now = await p.metric('notification', 'notification_sse_streams_open');
    expect(now.map((open, replica) => open > before[replica])).toEqual([true, true]);

    const threads: string[] = [];
    for (let i = 0; i < 4; i++) threads.push(await createThread(stack, ada, doc.id, `Live ${i} ${mention(cy)}`));
    const sentinel = await createThread(stack, ada, doc.id, `Sentinel ${mention(cy)}`);
    const threadOf = (data: string | undefined) =>
      (JSON.parse(data ?? 'null') as MentionNotification).references.commentThreadId;
    for (const stream of streams) {
      await stream.next((e) => e.event === 'notification' && threadOf(e.data) === sentinel);
    }
    await consumersCaughtUp(p, 'notification');
    for (const stream of streams) {
      const got = stream.events.filter((e) => e.event === 'notification').map((e) => threadOf(e.data));
      expect(got.sort()).toEqual([...threads, sentinel].sort());
    }
  } finally {
    for (const stream of streams) stream.close();
  }
}

/** A fetch for the MCP SDK that tags every request with its own request id (kept in `ids`). */
function taggedFetch(clientFetch: typeof fetch, prefix: string, ids: string[]): typeof fetch {
  return (input, init) => {
    const id = `${prefix}-${ids.length}`;
    ids.push(id);
    const headers = new Headers(init?.headers);
    headers.set('x-request-id', id);
    return clientFetch(input, { ...init, headers });
  };
}

/**
 * 3. MCP: an SDK client over the SSE transport keeps its stream on one replica while its POSTed
 * messages go round robin, so some land on the other replica, and it still works; over
 * Streamable HTTP (stateless) requests on both replicas work.
 */
export async function mcpOnBothReplicas(p: ReplicaPlatform): Promise<void> {
  const { stack } = p;
  const { clientFetch, connect, mcpKeyOf } = await import('../../services/mcp/test/helpers.js');
  const user = await signInNew(stack, 'Mia Assistant');
  const doc = await createDocument(stack, user, { title: 'Two MCP replicas', content: [paragraph('hello')] });
  const { key } = await mcpKeyOf(stack, user);

  const sseIds: string[] = [];
  const before = await p.metric('mcp', 'mcp_sse_sessions_open');
  const sse = await connect(stack, key, 'sse', taggedFetch(clientFetch, `mcp-sse-${tag()}`, sseIds));
  try {
    const now = await p.metric('mcp', 'mcp_sse_sessions_open');
    const holder = now.findIndex((open, replica) => open > before[replica]);
    expect(holder).not.toBe(-1);
    const other = p.replicas('mcp')[1 - holder].name;
    const names = (await sse.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('wikiGetDocument');
    for (let i = 0; i < 3; i++) {
      const read = await sse.call('wikiGetDocument', { documentId: doc.id });
      expect(read).toMatchObject({ isError: false, json: { id: doc.id, plainText: 'hello' } });
    }
    // The log line of a request follows its answer through the launcher's pipe.
    await eventually(() => expect(p.servedBy('mcp', '/api/v1/mcp/messages', sseIds)).toContain(other));
  } finally {
    await sse.close();
  }

  const httpIds: string[] = [];
  const http = await connect(stack, key, 'http', taggedFetch(clientFetch, `mcp-http-${tag()}`, httpIds));
  try {
    for (let i = 0; i < 4; i++) {
      const read = await http.call('wikiGetDocument', { documentId: doc.id });
      expect(read).toMatchObject({ isError: false, json: { plainText: 'hello' } });
    }
    expect((await http.client.listTools()).tools.map((t) => t.name)).toContain('wikiSearch');
  } finally {
    await http.close();
  }
  await eventually(() =>
    expect([...new Set(p.servedBy('mcp', '/api/v1/mcp', httpIds))].sort()).toEqual(['mcp', 'mcp-2']),
  );
}

/**
 * 4. The relay keeps order: a document's title changed many times in a row, each change through
 * whichever document replica the gateway picks (each replica relays its own writes from the one
 * outbox). The search index, fed by those events, only ever moves forward and ends on the last title.
 */
export async function relayKeepsOrder(p: ReplicaPlatform): Promise<void> {
  const { stack } = p;
  const user = await signInNew(stack, 'Rex Renamer');
  const word = `relay${tag()}`;
  const doc = await createDocument(stack, user, { title: `${word} 0` });
  const updates = 20;
  const ids: string[] = [];
  for (let i = 1; i <= updates; i++) {
    ids.push(`${word}-${i}`);
    const res = await stack.request('PUT', `/api/v1/documents/${doc.id}`, {
      token: user.token,
      body: { title: `${word} ${i}` },
      headers: { 'x-request-id': ids[i - 1] },
    });
    expectStatus(res, 200, `rename to ${i}`);
  }
  // The renames went through both document replicas.
  await eventually(() =>
    expect([...new Set(p.servedBy('document', `/api/v1/documents/${doc.id}`, ids))].sort()).toEqual([
      'document',
      'document-2',
    ]),
  );

  const seen: number[] = [];
  const indexedTitle = async () => {
    const res = await stack.request('GET', `/api/v1/documents/search?workspaceId=${doc.workspaceId}&query=${word}`, {
      token: user.token,
    });
    const hit = expectStatus(res, 200, 'search').body.data.find((d: { id: string }) => d.id === doc.id);
    if (hit) seen.push(Number(String(hit.title).split(' ')[1]));
    return hit?.title;
  };
  await eventually(async () => expect(await indexedTitle()).toBe(`${word} ${updates}`), {
    timeoutMs: 20_000,
    intervalMs: 50,
  });
  await consumersCaughtUp(p, 'search');
  expect(await indexedTitle()).toBe(`${word} ${updates}`);
  // Never an older title after a newer one.
  expect(seen).toEqual([...seen].sort((a, b) => a - b));
}

/**
 * 5. The export workers share one queue: several Markdown exports at once all succeed, and both
 * worker processes (`export`, `export-2`, each logging the jobs it finished) rendered some.
 */
export async function exportWorkersShareQueue(p: ReplicaPlatform, perRound = 8): Promise<void> {
  const { stack } = p;
  // Two exports per person at once: under the per-user cap of concurrent exports (3 by default).
  const exporters = await Promise.all(
    Array.from({ length: Math.ceil(perRound / 2) }, async (_, n) => {
      const user = await signInNew(stack, `Exa Exporter ${n}`);
      return { user, ws: await workspaceWith(stack, user) };
    }),
  );
  const workers = new Set<string>();
  // Which idle worker takes a job is up to Redis: more rounds until both have taken one.
  for (let round = 0; round < 4 && workers.size < 2; round++) {
    const docs = await Promise.all(
      Array.from({ length: perRound }, async (_, i) => {
        const { user, ws } = exporters[i % exporters.length];
        const title = `Export ${round}-${i}`;
        const doc = await createDocument(stack, user, { workspaceId: ws.id, title, content: [paragraph('x')] });
        return { ...doc, title, token: user.token };
      }),
    );
    const files = await Promise.all(
      docs.map(async (doc) => {
        const res = await fetch(`${stack.gatewayUrl}/api/v1/documents/${doc.id}/export?format=markdown`, {
          headers: { authorization: `Bearer ${doc.token}` },
        });
        return { status: res.status, text: await res.text() };
      }),
    );
    expect(files).toEqual(docs.map((doc) => ({ status: 200, text: `# ${doc.title}\n\nx\n` })));
    for (const doc of docs) {
      const by = await eventually(() => {
        const names = p.logged('export', 'an export job finished', doc.id);
        expect(names).toHaveLength(1);
        return names[0];
      });
      workers.add(by);
    }
  }
  expect([...workers].sort()).toEqual(['export', 'export-2']);
}

/**
 * An editor connected through the gateway's /collab and synced. A replica's first room loads
 * BlockNote's server editor (React, jsdom), which takes seconds on a busy machine: a longer wait
 * than synced()'s.
 */
async function connectSlowly(stack: Stack, documentId: string, as: SignedInUser): Promise<CollabEditor> {
  const e = connectEditor(collabUrl(stack), documentId, as.token);
  try {
    await eventually(
      () => {
        expect(e.denied).toEqual([]);
        expect(e.provider.isSynced).toBe(true);
      },
      { timeoutMs: 45_000, intervalMs: 100 },
    );
  } catch (error) {
    e.destroy();
    throw error;
  }
  return e;
}

/**
 * 6. Collaboration: editors of one document on both collab replicas (connections opened through
 * the gateway's /collab until each replica holds one) converge on the same text, which the
 * REST read then shows.
 */
export async function collabConverges(p: ReplicaPlatform): Promise<void> {
  const { stack } = p;
  const [owner, editor] = await Promise.all([signInNew(stack, 'Olga Owner'), signInNew(stack, 'Ed Editor')]);
  const ws = await workspaceWith(stack, owner, [[editor, 'EDITOR']]);
  const doc = await createDocument(stack, owner, {
    workspaceId: ws.id,
    title: 'Converge',
    content: [paragraph('base')],
  });
  const editors: CollabEditor[] = [];
  try {
    const before = await p.metric('collab', 'collab_connections_open');
    for (let i = 0; i < 6; i++) {
      const as: SignedInUser = i % 2 === 0 ? owner : editor;
      editors.push(await connectSlowly(stack, doc.id, as));
      const now = await p.metric('collab', 'collab_connections_open');
      if (now.every((open, replica) => open > before[replica])) break;
    }
    const now = await p.metric('collab', 'collab_connections_open');
    expect(now.map((open, replica) => open > before[replica])).toEqual([true, true]);

    const lines = editors.map((_, i) => `typed by editor ${i}`);
    for (const [i, e] of editors.entries()) typeParagraph(e.doc, lines[i]);
    const expected = ['base', ...lines].sort();
    await eventually(() => {
      for (const e of editors) expect(e.text().split('\n').sort()).toEqual(expected);
      expect(new Set(editors.map((e) => e.text())).size).toBe(1);
    });
    await eventually(
      async () => {
        const content = (await restDocument(stack, owner.token, doc.id)).content;
        for (const line of lines) expect(content).toContain(line);
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  } finally {
    for (const e of editors) e.destroy();
  }
}

interface RevisionSummary {
  id: string;
  revision: number;
  source: string;
}

/**
 * 7. Document history (issue 26, ARCHITECTURE 5.16): two writers PUT on the same revision at once
 * (If-Match), in rounds until the pair went to both document replicas: exactly one 200, the other
 * 412 naming the winner's revision. The list of revisions is the same whichever replica answers.
 * A restore while editors are connected through /collab (on both collab replicas) reaches every
 * editor, once, and answers with the new revision as its ETag.
 */
export async function historyAcrossReplicas(p: ReplicaPlatform): Promise<void> {
  const { stack } = p;
  const [owner, editor] = await Promise.all([signInNew(stack, 'Hana Historian'), signInNew(stack, 'Ivo Reviser')]);
  const ws = await workspaceWith(stack, owner, [[editor, 'EDITOR']]);
  const first = paragraphWithId(`first-${tag()}`, 'The first wording');
  const doc = await createDocument(stack, owner, { workspaceId: ws.id, title: 'History', content: [first] });
  const path = `/api/v1/documents/${doc.id}`;
  const put = (as: SignedInUser, body: object, headers: Record<string, string> = {}) =>
    stack.request('PUT', path, { token: as.token, body, headers });
  // Another author: a revision of its own, whatever REVISION_INTERVAL_S folds.
  const rewritten = await put(editor, {
    content: [{ ...first, content: [{ type: 'text', text: 'A rewrite', styles: {} }] }],
  });
  let revision = expectStatus(rewritten, 200, 'the rewrite').body.data.revision as number;

  let split = false;
  for (let round = 0; round < 8 && !split; round++) {
    const ids = [`race-${tag()}`, `race-${tag()}`];
    const answers = await Promise.all(
      [owner, editor].map((as, i) =>
        put(as, { title: `Race ${round} by ${as.name}` }, { 'if-match': `"${revision}"`, 'x-request-id': ids[i] }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
    const won = answers.find((a) => a.status === 200)!;
    const lost = answers.find((a) => a.status === 412)!;
    expect(won.body.data.revision).toBe(revision + 1);
    expect(won.headers.etag).toBe(`"${revision + 1}"`);
    expect(lost.body.error).toMatchObject({ code: 'PRECONDITION_FAILED', details: [{ current: revision + 1 }] });
    revision += 1;
    const servers = await eventually(() => {
      const by = p.servedBy('document', path, ids);
      expect(by).toHaveLength(2);
      return by;
    });
    split = new Set(servers).size === 2;
  }
  expect(split).toBe(true);

  // The same list from either replica (each names the users from its own projection).
  const listIds = Array.from({ length: 6 }, () => `list-${tag()}`);
  const lists: Array<{ content: RevisionSummary[]; totalElements: number }> = [];
  for (const id of listIds) {
    const res = await stack.request('GET', `${path}/revisions?size=100`, {
      token: editor.token,
      headers: { 'x-request-id': id },
    });
    lists.push(expectStatus(res, 200, 'the revisions').body.data);
  }
  for (const list of lists) expect(list).toEqual(lists[0]);
  const revisions = lists[0].content;
  expect(revisions[0].revision).toBe(revision);
  await eventually(() =>
    expect([...new Set(p.servedBy('document', `${path}/revisions`, listIds))].sort()).toEqual([
      'document',
      'document-2',
    ]),
  );

  const editors: CollabEditor[] = [];
  try {
    const before = await p.metric('collab', 'collab_connections_open');
    for (let i = 0; i < 6; i++) {
      editors.push(await connectSlowly(stack, doc.id, i % 2 === 0 ? owner : editor));
      const now = await p.metric('collab', 'collab_connections_open');
      if (now.every((open, replica) => open > before[replica])) break;
    }
    const now = await p.metric('collab', 'collab_connections_open');
    expect(now.map((open, replica) => open > before[replica])).toEqual([true, true]);
    for (const e of editors) expect(e.text()).toBe('A rewrite');

    const oldest = revisions.at(-1)!;
    expect(oldest.revision).toBe(1);
    const restored = await stack.request('POST', `${path}/revisions/${oldest.id}/restore`, { token: editor.token });
    const answer = expectStatus(restored, 200, 'the restore').body.data;
    expect(answer.revision).toBe(revision + 1);
    expect(restored.headers.etag).toBe(`"${answer.revision}"`);
    expect(JSON.parse(answer.content)).toEqual([first]);

    // Every editor, on either replica, shows the restored text, once.
    await eventually(() => {
      for (const e of editors) expect(e.text()).toBe('The first wording');
    });
    const [latest] = (await stack.request('GET', `${path}/revisions?size=1`, { token: owner.token })).body.data
      .content as RevisionSummary[];
    expect(latest).toMatchObject({ revision: answer.revision, source: 'RESTORE' });
    expect((await restDocument(stack, owner.token, doc.id)).content).toContain('The first wording');
  } finally {
    for (const e of editors) e.destroy();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Each replica's mail relay looks for unqueued messages this often (services/notification
 * src/mail/queue.ts RELAY_INTERVAL_MS, not imported: it would load the service's code): waiting one
 * round more lets a message that was to go out twice do so before the inbox is counted.
 */
const MAIL_RELAY_ROUND_MS = 5_000;

/** The messages to `address` whose subject matches, once there are `count` (failing if more arrive meanwhile). */
function inbox(smtp: TestSmtp, address: string, subject: RegExp, count = 1): Promise<ParsedMail[]> {
  return eventually(
    () => {
      const got = smtp.to(address).filter((m) => subject.test(m.subject ?? ''));
      if (got.length < count) throw new Error(`${got.length} of ${count} messages to ${address} (${subject})`);
      expect(got).toHaveLength(count);
      return got;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
}

/**
 * 8. An invitation to an address nobody uses yet is e-mailed (once, though both replicas relay
 * and send); the link in the message leads to the gateway, which serves the app's page for it
 * and previews the invitation; the invitee signs in with that address, accepts and is a member.
 */
export async function invitationEmailJoins(p: ReplicaPlatform): Promise<void> {
  const { stack, smtp } = p;
  const ada = await signInNew(stack, 'Ada Inviter');
  const ws = await createWorkspace(stack, ada);
  const email = uniqueEmail('Nia Newcomer');
  const invited = await stack.request('POST', `/api/v1/workspaces/${ws.id}/members/invite`, {
    token: ada.token,
    body: { email, role: 'EDITOR' },
  });
  expectStatus(invited, 201, 'invite a new address');

  const [mail] = await inbox(smtp, email, /invited you/);
  expect(mail.subject).toBe(`Ada Inviter invited you to “${ws.name}”`);
  const link = /https?:\/\/\S+\/invite\/[A-Za-z0-9_-]+/.exec(mail.text ?? '')?.[0];
  if (!link) throw new Error(`no invitation link in:\n${mail.text}`);
  expect(mail.html).toContain(`href="${link}"`);
  // INVITE_URL is unset: links point to the gateway's public port, whatever PORT npm start was given.
  expect(new URL(link).origin).toBe(`http://localhost:${new URL(stack.gatewayUrl).port}`);

  // Following the link: the gateway answers the app's page (503 with its "not built" page when
  // the web app was not built, as under `npm run test:replicas`), and the page previews the invitation.
  const page = await fetch(link);
  expect([200, 503]).toContain(page.status);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  await page.arrayBuffer();
  const token = new URL(link).pathname.split('/').at(-1)!;
  const preview = await stack.request('GET', `/api/v1/invitations/${token}/info`);
  expect(expectStatus(preview, 200, 'the invitation preview').body.data).toMatchObject({
    email,
    role: 'EDITOR',
    status: 'PENDING',
    workspace: { id: ws.id, name: ws.name },
  });

  const nia = await stack.signIn(email, 'Nia Newcomer');
  const accepted = await stack.request('POST', `/api/v1/invitations/${token}/accept`, { token: nia.token });
  expect(expectStatus(accepted, 200, 'accept the invitation').body.data).toMatchObject({
    userId: nia.id,
    role: 'EDITOR',
  });
  const members = await stack.request('GET', `/api/v1/workspaces/${ws.id}/members`, { token: ada.token });
  const listed = expectStatus(members, 200, 'the members').body.data as Array<{ userId: string; role: string }>;
  expect(listed.find((m) => m.userId === nia.id)?.role).toBe('EDITOR');
  expectStatus(await stack.request('GET', `/api/v1/workspaces/${ws.id}`, { token: nia.token }), 200, 'the workspace');
  expect(smtp.to(email)).toHaveLength(1);
}

/** The COMMENT_MENTION notifications of `user`, as [thread id, notification id]. */
async function mentionNotifications(stack: Stack, user: SignedInUser): Promise<Map<string, string>> {
  const res = await stack.request('GET', '/api/v1/notifications/type/COMMENT_MENTION?size=100', { token: user.token });
  const page = expectStatus(res, 200, `mentions of ${user.email}`).body.data.content as Array<
    MentionNotification & { id: string }
  >;
  return new Map(page.map((n) => [n.references.commentThreadId, n.id]));
}

/**
 * 9. A mention is e-mailed exactly once, although both replicas run a mail relay, a worker and the
 * digest round: mentions in rounds until both replicas' workers sent some (each logs the job it
 * finished, whose id is the notification's), then one relay round more, and each mention is
 * still one message.
 */
export async function mentionEmailedOnce(p: ReplicaPlatform): Promise<void> {
  const { stack, smtp } = p;
  const [ada, bob] = await Promise.all([signInNew(stack, 'Ada Mailer'), signInNew(stack, 'Bob Mailed')]);
  const ws = await workspaceWith(stack, ada, [[bob, 'EDITOR']]);
  const doc = await createDocument(stack, ada, { workspaceId: ws.id, title: 'Mailed mentions' });
  const mailsAbout = (thread: string) => smtp.to(bob.email).filter((m) => m.text?.includes(`#thread-${thread}`));
  const sentBy = (notificationId: string) =>
    p.logged('notification', 'e-mail job done', `notification-${notificationId}`);

  const threads: string[] = [];
  const senders = new Set<string>();
  for (let round = 0; round < 4 && senders.size < 2; round++) {
    const made: string[] = [];
    for (let i = 0; i < 4; i++) made.push(await createThread(stack, ada, doc.id, `Mail ${round}.${i} ${mention(bob)}`));
    threads.push(...made);
    await eventually(() => expect(made.filter((t) => mailsAbout(t).length === 0)).toEqual([]), {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    const notified = await mentionNotifications(stack, bob);
    // The log line of a job follows the message through the launcher's pipe.
    for (const thread of made) {
      const by = await eventually(() => {
        const names = sentBy(notified.get(thread) ?? 'none');
        expect(names.length).toBeGreaterThan(0);
        return names;
      });
      for (const name of by) senders.add(name);
    }
  }
  expect([...senders].sort()).toEqual(['notification', 'notification-2']);

  await sleep(MAIL_RELAY_ROUND_MS + 1_000);
  for (const thread of threads) {
    expect({ thread, messages: mailsAbout(thread).length }).toEqual({ thread, messages: 1 });
  }
  const [mail] = mailsAbout(threads[0]);
  expect(mail.subject).toBe('Ada Mailer mentioned you on “Mailed mentions”');
  const gateway = `http://localhost:${new URL(stack.gatewayUrl).port}`;
  expect(mail.text).toContain(`${gateway}/w/${ws.id}/d/${doc.id}#thread-${threads[0]}`);
  // Bob accepted at once: his invitation's message went out before that, or was dropped (its link closed); never twice.
  expect(smtp.to(bob.email).filter((m) => /invited you/.test(m.subject ?? '')).length).toBeLessThanOrEqual(1);
}

interface UpdateNotification {
  id: string;
  type: string;
  document: { id: string; title: string } | null;
  actor: { id: string } | null;
  metadata: { edits?: number };
}

/**
 * 10. Watching: a viewer watches a document through the gateway (its creator watches by itself);
 * another person's edits inside WATCH_DEBOUNCE_S, handled by whichever notification replicas take
 * their events, give each watcher exactly one DOCUMENT_UPDATED that counts them; an edit after the
 * window gives one more. The editor is told nothing.
 */
export async function watchedEditsDebounced(p: ReplicaPlatform): Promise<void> {
  const { stack } = p;
  const [ada, bob, vic] = await Promise.all([
    signInNew(stack, 'Ada Author'),
    signInNew(stack, 'Bob Reviser'),
    signInNew(stack, 'Vic Watcher'),
  ]);
  const ws = await workspaceWith(stack, ada, [
    [bob, 'EDITOR'],
    [vic, 'VIEWER'],
  ]);
  const doc = await createDocument(stack, ada, { workspaceId: ws.id, title: 'Watched' });
  const watchPath = `/api/v1/documents/${doc.id}/watch`;
  const watched = await stack.request('PUT', watchPath, { token: vic.token });
  expect(expectStatus(watched, 200, 'watch').body.data).toEqual({ watching: true });
  await eventually(async () => {
    const res = await stack.request('GET', watchPath, { token: ada.token });
    expect(expectStatus(res, 200, 'the creator watches').body.data).toEqual({ watching: true });
  });

  const edit = async (title: string) =>
    expectStatus(
      await stack.request('PUT', `/api/v1/documents/${doc.id}`, { token: bob.token, body: { title } }),
      200,
      `edit to ${title}`,
    );
  const updatesOf = async (user: SignedInUser) => {
    const res = await stack.request('GET', '/api/v1/notifications/type/DOCUMENT_UPDATED?size=100', {
      token: user.token,
    });
    const page = expectStatus(res, 200, `updates of ${user.email}`).body.data.content as UpdateNotification[];
    return page.filter((n) => n.document?.id === doc.id);
  };

  const windowMs = REPLICA_SETTINGS.watchDebounceS * 1000;
  const firstEditAt = Date.now();
  await edit('Watched, once');
  await edit('Watched, twice');
  const windowOpenedBy = Date.now();
  // Both edits handled (each by whichever notification replica took its event): one notification
  // each, counting both, or 1 when the later edit was handled first (docs/DECISIONS.md, "Watching").
  // The pause lets the second edit's event reach the stream before the consumers' lag is read.
  for (const watcher of [ada, vic]) {
    await eventually(async () => expect((await updatesOf(watcher)).length).toBeGreaterThan(0), {
      timeoutMs: 20_000,
      intervalMs: 100,
    });
  }
  await sleep(1_000);
  await consumersCaughtUp(p, 'notification');
  const counted = new Map<string, number>();
  for (const watcher of [ada, vic]) {
    const got = await updatesOf(watcher);
    expect({ watcher: watcher.name, notifications: got.length }).toEqual({ watcher: watcher.name, notifications: 1 });
    expect(got[0].actor?.id).toBe(bob.id);
    expect([1, 2]).toContain(got[0].metadata.edits);
    counted.set(watcher.id, got[0].metadata.edits ?? 0);
  }
  // A third edit, still inside the window and after the others were handled: counted on the same one.
  if (Date.now() > firstEditAt + windowMs - 1_000) {
    throw new Error(`the debounce window (${windowMs} ms) passed before the third edit: the machine is too slow`);
  }
  await edit('Watched, thrice');
  for (const watcher of [ada, vic]) {
    await eventually(
      async () => {
        const got = await updatesOf(watcher);
        expect(got).toHaveLength(1);
        expect(got[0].metadata.edits).toBe(counted.get(watcher.id)! + 1);
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
  }
  expect(await updatesOf(bob)).toEqual([]);

  // After the window: one more for each watcher, counting that one edit.
  await sleep(Math.max(0, windowOpenedBy + windowMs + 500 - Date.now()));
  for (const watcher of [ada, vic]) expect(await updatesOf(watcher)).toHaveLength(1);
  await edit('Watched, after a while');
  for (const watcher of [ada, vic]) {
    await eventually(
      async () => {
        const got = await updatesOf(watcher);
        expect(got).toHaveLength(2);
        // Newest first: the new window's notification counts its one edit.
        expect(got.map((n) => n.metadata.edits)).toEqual([1, counted.get(watcher.id)! + 1]);
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
  }
  expect(await updatesOf(bob)).toEqual([]);
}

/**
 * 11. A chat bot's webhook through an outage: its receiver answers 500 to the first deliveries,
 * then 200. Every document event of its workspace (two documents, created and renamed through
 * whichever document replica, delivered by both notification replicas' workers) arrives with
 * a 2xx exactly once, each request signed as ARCHITECTURE 5.18 says, each document's events in
 * the order they happened; a retry repeats its delivery's id and body; the log agrees.
 */
export async function webhooksThroughOutage(p: ReplicaPlatform): Promise<void> {
  const { stack } = p;
  const receiver = await new WebhookReceiver().start();
  try {
    const owner = await signInNew(stack, 'Wes Webhooks');
    const ws = await createWorkspace(stack, owner);
    const path = `/bot-${tag()}`;
    const outage = 4;
    const url = receiver.rule(path, (n) => (n <= outage ? 500 : 200));
    const created = await stack.request('POST', `/api/v1/workspaces/${ws.id}/webhooks`, {
      token: owner.token,
      body: { url, events: ['document.*'] },
    });
    const hook = expectStatus(created, 201, 'create the webhook').body.data as { id: string; secret: string };

    const expected = new Map<string, string[]>();
    const docs: string[] = [];
    for (let d = 0; d < 2; d++) {
      const doc = await createDocument(stack, owner, { workspaceId: ws.id, title: `Bot ${d} v0` });
      docs.push(doc.id);
      expected.set(doc.id, [`document.created Bot ${d} v0`]);
    }
    const renameAll = async (v: number) => {
      for (const [d, id] of docs.entries()) {
        const title = `Bot ${d} v${v}`;
        const res = await stack.request('PUT', `/api/v1/documents/${id}`, { token: owner.token, body: { title } });
        expectStatus(res, 200, `rename to ${title}`);
        expected.get(id)!.push(`document.updated ${title}`);
      }
    };
    const totalNow = () => [...expected.values()].reduce((sum, events) => sum + events.length, 0);
    const bodyOf = (r: Received) =>
      JSON.parse(r.body) as { id: string; event: string; workspaceId: string; data: { id: string; title: string } };
    const succeeded = () => receiver.at(path).filter((r) => r.answered === 200);
    // Each worker logs the deliveries it made (webhook id, never the URL): one line per delivery.
    const deliveredBy = () => p.logged('notification', 'webhook delivered', hook.id);

    for (let v = 1; v <= 4; v++) await renameAll(v);
    // More renames while one replica's worker has delivered everything (which idle worker takes a job is up to Redis).
    for (let v = 5; ; v++) {
      await eventually(
        () => {
          expect(succeeded().length).toBeGreaterThanOrEqual(totalNow());
          expect(deliveredBy().length).toBeGreaterThanOrEqual(totalNow());
        },
        { timeoutMs: 45_000, intervalMs: 100 },
      );
      if (new Set(deliveredBy()).size === 2 || v === 7) break;
      await renameAll(v);
    }
    const total = totalNow();
    // Nothing more comes once every delivery succeeded (a retry or second worker would add one).
    await sleep(REPLICA_SETTINGS.webhookRetryBaseMs * 10);

    const all = receiver.at(path);
    expect(all.filter((r) => r.answered === 500)).toHaveLength(outage);
    const ok = succeeded();
    expect(ok).toHaveLength(total);
    expect(new Set(ok.map((r) => bodyOf(r).id)).size).toBe(total);
    for (const r of all) {
      expect(r.headers['wiki-event']).toBe(bodyOf(r).event);
      expect(verifySignature(hook.secret, String(r.headers['wiki-signature']), r.body)).toBe(true);
      expect(bodyOf(r).workspaceId).toBe(ws.id);
    }
    for (const id of docs) {
      const got = ok.filter((r) => bodyOf(r).data.id === id).map((r) => `${bodyOf(r).event} ${bodyOf(r).data.title}`);
      expect({ document: id, got }).toEqual({ document: id, got: expected.get(id) });
    }
    // Each failed request was retried as the same delivery, with the same body, and then succeeded.
    for (const failed of all.filter((r) => r.answered === 500)) {
      const retried = ok.filter((r) => r.headers['wiki-delivery'] === failed.headers['wiki-delivery']);
      expect(retried.map((r) => r.body)).toEqual([failed.body]);
    }

    const log = await stack.request('GET', `/api/v1/webhooks/${hook.id}/deliveries?size=100`, {
      token: owner.token,
    });
    const page = expectStatus(log, 200, 'the delivery log').body.data as {
      content: Array<{ id: string; status: string; attempts: number; responseStatus: number }>;
      totalElements: number;
    };
    expect(page.totalElements).toBe(total);
    expect(page.content.filter((d) => d.status !== 'delivered' || d.responseStatus !== 200)).toEqual([]);
    expect(page.content.reduce((sum, d) => sum + d.attempts, 0)).toBe(total + outage);
    expect(deliveredBy()).toHaveLength(total);
    expect([...new Set(deliveredBy())].sort()).toEqual(['notification', 'notification-2']);
  } finally {
    await receiver.close();
  }
}
