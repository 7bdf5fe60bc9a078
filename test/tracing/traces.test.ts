import { createDatabasePool } from '@wiki/db';
import {
  createDocument,
  paragraph,
  readOutbox,
  type SignedInUser,
  type Stack,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import { flushTracing, stopTracing, tracingSdkLoaded } from '@wiki/tracing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPlatform } from '../platform.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.js';
import { otelSdkModulesLoaded } from './sdk-modules.js';

/**
 * Issue 19 point 6: with an OTLP endpoint configured, one trace goes from the gateway through the
 * document service and across its document.created event to the workspace service's consumer.
 * The spans are read back from a real OTLP/HTTP receiver, as a collector would get them.
 */
const SERVER = 2;
const PRODUCER = 4;
const CONSUMER = 5;

let receiver: OtlpReceiver;
let stack: Stack;
let alice: SignedInUser;
let workspaceId: string;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  // In each part's configuration, read by createApp as the part starts: the variable an operator sets.
  stack = await startPlatform(['workspace', 'document'], {
    env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url },
  });
  alice = await signInNew(stack, 'Alice Tracer');
  workspaceId = (await workspaceWith(stack, alice)).id;
});

afterAll(async () => {
  await stack?.stop();
  await stopTracing();
  await receiver?.close();
});

/** Waits until the receiver holds a span matching `match` (the consumer's comes after the answer). */
async function spanWhere(match: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan> {
  return vi.waitFor(
    async () => {
      await flushTracing();
      const found = receiver.spans.find(match);
      if (!found) throw new Error('span not exported yet');
      return found;
    },
    { timeout: 20_000, interval: 100 },
  );
}

describe('traces', () => {
  it('go from the gateway through the document service and its event to the workspace consumer', async () => {
    expect(tracingSdkLoaded()).toBe(true);
    expect(otelSdkModulesLoaded()).not.toEqual([]);
    const document = await createDocument(stack, alice, {
      workspaceId,
      title: 'Traced',
      content: [paragraph('hello')],
    });

    const documentSpan = await spanWhere(
      (s) => s.service === 'document' && s.kind === SERVER && s.name === 'POST /api/v1/documents',
    );
    expect(documentSpan.attributes['http.response.status_code']).toBe(201);
    const traceId = documentSpan.traceId;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);

    // The gateway's span is the root and the document service's parent.
    const gatewaySpan = await spanWhere((s) => s.service === 'gateway' && s.spanId === documentSpan.parentSpanId);
    expect(gatewaySpan.traceId).toBe(traceId);
    expect(gatewaySpan.kind).toBe(SERVER);
    expect(gatewaySpan.parentSpanId).toBe('');

    // The envelope carries the document service's span as the event's parent...
    const pool = await createDatabasePool(stack.config.databaseUrls.document, { maximumPoolSize: 1 });
    try {
      const [event] = (await readOutbox(pool, 'document.created')).filter((e) => e.data.id === document.id);
      expect((event as { traceparent?: string }).traceparent).toBe(`00-${traceId}-${documentSpan.spanId}-01`);
    } finally {
      await pool.end();
    }

    // ...of the relay's publish and of the workspace service's consumer.
    const publishSpan = await spanWhere(
      (s) => s.traceId === traceId && s.kind === PRODUCER && s.name === 'publish document.created',
    );
    expect(publishSpan.service).toBe('document');
    expect(publishSpan.parentSpanId).toBe(documentSpan.spanId);

    const consumerSpan = await spanWhere(
      (s) => s.traceId === traceId && s.kind === CONSUMER && s.name === 'process document.created',
    );
    expect(consumerSpan.service).toBe('workspace');
    expect(consumerSpan.parentSpanId).toBe(documentSpan.spanId);
    expect(consumerSpan.attributes['messaging.consumer.group.name']).toMatch(/^workspace-/);
  });

  it('start at the gateway whatever traceparent a client sends', async () => {
    const clientTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await stack.request('GET', `/api/v1/workspaces/${workspaceId}`, {
      token: alice.token,
      headers: { traceparent: `00-${clientTrace}-00f067aa0ba902b7-01` },
    });
    expect(res.status).toBe(200);
    const requestId = res.headers['x-request-id'];
    const gatewaySpan = await spanWhere(
      (s) => s.service === 'gateway' && s.attributes['wiki.request_id'] === requestId,
    );
    expect(gatewaySpan.parentSpanId).toBe('');
    expect(gatewaySpan.traceId).not.toBe(clientTrace);
    const workspaceSpan = await spanWhere(
      (s) => s.service === 'workspace' && s.kind === SERVER && s.parentSpanId === gatewaySpan.spanId,
    );
    expect(workspaceSpan.traceId).toBe(gatewaySpan.traceId);
    expect(receiver.spans.some((s) => s.traceId === clientTrace)).toBe(false);
  });

  it('go on through the service client: a call the gateway makes for a request is its child', async () => {
    await flushTracing();
    const before = new Set(receiver.spans.map((s) => s.spanId));
    // A new user's first request: the gateway resolves the account with the workspace service.
    const bob = await signInNew(stack, 'Bob Traced');
    expect(bob.id).toBeTruthy();
    const resolve = await spanWhere(
      (s) => !before.has(s.spanId) && s.service === 'workspace' && s.name === 'POST /internal/users/resolve',
    );
    const gatewaySpan = await spanWhere((s) => s.service === 'gateway' && s.spanId === resolve.parentSpanId);
    expect(gatewaySpan.traceId).toBe(resolve.traceId);
    expect(gatewaySpan.name).toBe('GET /api/v1/*');
  });
});
