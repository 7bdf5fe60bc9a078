import type { AddressInfo } from 'node:net';
import { eventually, type SignedInUser, type Stack, signInNew } from '@wiki/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startService as startNotification } from '../src/service.js';
import { startNotificationStack } from './helpers.js';
import { SseStream } from './sse.js';

/**
 * At most NOTIFICATION_STREAMS_PER_USER (default 10) open streams per user across every replica
 * (ARCHITECTURE 5.14), through the gateway at two notification replicas: the one past the limit
 * is served and closes the user's oldest stream, wherever that one lives.
 */
const STREAM = '/api/v1/notifications/stream';
const LIMIT = 10;

let stack: Stack;
const replicas: Array<{ app: FastifyInstance; stop(): Promise<void> }> = [];
let ada: SignedInUser;
let bob: SignedInUser;
const opened: SseStream[] = [];

const open = async (user: SignedInUser) => {
  const stream = await SseStream.open(`${stack.gatewayUrl}${STREAM}`, { authorization: `Bearer ${user.token}` });
  opened.push(stream);
  // Served: its first count has come.
  await stream.next((e) => e.event === 'unread-count');
  return stream;
};
const reconnectReason = (stream: SseStream) =>
  stream.named('reconnect').map((e) => JSON.parse(e.data ?? '{}').reason as string);
const openHere = () => replicas.map(({ app }) => app.notificationStreams.open);
const totalOpen = () => openHere().reduce((a, b) => a + b);
// Stream responses still open at the HTTP layer of the replicas: counted from the server's own
// request and close events, so pooled keep-alive sockets and health checks do not blur the count.
let streamResponsesOpen = 0;
const countStreamResponses = (app: FastifyInstance) =>
  app.server.on('request', (request, response) => {
    if (!request.url?.startsWith(STREAM)) return;
    streamResponsesOpen++;
    response.once('close', () => streamResponsesOpen--);
  });

beforeAll(async () => {
  stack = await startNotificationStack();
  // Two replicas of the test's own behind the gateway (the stack's keeps making notifications).
  const urls: string[] = [];
  for (let i = 0; i < 2; i++) {
    const replica = await startNotification(stack.config);
    replicas.push(replica);
    countStreamResponses(replica.app);
    await replica.app.listen({ port: 0, host: '127.0.0.1' });
    urls.push(`http://127.0.0.1:${(replica.app.server.address() as AddressInfo).port}`);
  }
  stack.config.replicaUrls.notification = urls;
  [ada, bob] = await Promise.all([signInNew(stack, 'Ada Many Tabs'), signInNew(stack, 'Bob One Tab')]);
});
afterEach(async () => {
  for (const stream of opened.splice(0)) stream.close();
  await eventually(() => expect(totalOpen()).toBe(0));
});
afterAll(async () => {
  for (const replica of replicas) await replica.stop().catch(() => undefined);
  await stack?.stop();
});

describe('notification streams per user', () => {
  it(`serves ${LIMIT} streams, and the next one closes the oldest with a reconnect event, across replicas`, async () => {
    const streams: SseStream[] = [];
    for (let i = 0; i < LIMIT; i++) streams.push(await open(ada));
    const bobs = await open(bob);
    // Spread over both replicas by the gateway's round robin.
    expect(openHere().every((n) => n > 0)).toBe(true);
    expect(totalOpen()).toBe(LIMIT + 1);
    expect(streams.filter((s) => s.ended)).toEqual([]);
    expect(streamResponsesOpen).toBe(LIMIT + 1);

    const eleventh = await open(ada);
    await streams[0].endedByServer();
    expect(reconnectReason(streams[0])).toEqual(['too many streams']);
    // Come back later, not at once: an EventSource would push out the next one straight away.
    expect(streams[0].events.find((e) => e.event === 'reconnect')).toBeDefined();
    expect(streams[0].events.some((e) => e.retry === 30_000)).toBe(true);
    for (const other of [...streams.slice(1), eleventh, bobs]) {
      expect(other.ended).toBe(false);
      expect(reconnectReason(other)).toEqual([]);
    }
    await eventually(() => expect(totalOpen()).toBe(LIMIT + 1));

    // And so on, oldest first, whichever replica holds it.
    await open(ada);
    await streams[1].endedByServer();
    expect(reconnectReason(streams[1])).toEqual(['too many streams']);
    for (const other of streams.slice(2)) expect(other.ended).toBe(false);
    await eventually(() => expect(totalOpen()).toBe(LIMIT + 1));

    // Counted for the metric notification_sse_streams_pushed_out_total.
    expect(replicas.reduce((n, { app }) => n + app.notificationStreamLimit.pushedOut, 0)).toBe(2);
    // Two streams more, two fewer: the pushed-out responses really ended at the HTTP layer.
    await eventually(() => expect(streamResponsesOpen).toBe(LIMIT + 1));
  });

  it('a stream that ends on its own frees its place: no older one is closed for the next', async () => {
    const streams: SseStream[] = [];
    for (let i = 0; i < LIMIT; i++) streams.push(await open(bob));
    streams[5].close();
    await eventually(() => expect(totalOpen()).toBe(LIMIT - 1));
    await open(bob);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(streams.filter((s) => s.ended)).toEqual([streams[5]]);
    expect(streams.flatMap(reconnectReason)).toEqual([]);
  });
});
