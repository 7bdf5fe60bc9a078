import { randomBytes } from 'node:crypto';
import {
  type CollabEditor,
  collabUrl,
  connectEditor,
  createDocument,
  eventually,
  expectStatus,
  paragraph,
  paragraphWithId,
  restDocument,
  type SignedInUser,
  type Stack,
  signInNew,
  typeParagraph,
  workspaceWith,
} from '@wiki/testing';
import { expect } from 'vitest';
import { SseStream } from '../../services/notification/test/sse.js';
import type { ReplicaPlatform } from './replica-platform.js';

/**
 * What issues 19 and 26 (history) ask of two replicas, each proven end to end through the gateway of a platform
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
