import { createDatabasePool } from '@wiki/db';
import { createDocument, paragraph, readOutbox, type SignedInUser, type Stack, signInNew } from '@wiki/testing';
import { tracingEnabled, tracingSdkLoaded } from '@wiki/tracing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform } from '../platform.js';
import { otelSdkModulesLoaded } from './sdk-modules.js';

/**
 * Tracing is off unless an OTLP endpoint is configured: then no OpenTelemetry SDK module is
 * imported (so nothing can be exported) and events carry no trace context. traces.test.ts checks
 * that the same look at the loaded modules finds the SDK when tracing is on.
 */
const OTEL_VARIABLES = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'];

let stack: Stack;
let alice: SignedInUser;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  for (const name of OTEL_VARIABLES) {
    saved[name] = process.env[name];
    delete process.env[name];
  }
  stack = await startPlatform(['workspace', 'document']);
  alice = await signInNew(stack, 'Alice Untraced');
});

afterAll(async () => {
  await stack?.stop();
  for (const name of OTEL_VARIABLES) if (saved[name] !== undefined) process.env[name] = saved[name];
});

describe('tracing off (the default)', () => {
  it('loads no SDK module and writes no trace context into events', async () => {
    const document = await createDocument(stack, alice, { title: 'Untraced', content: [paragraph('quiet')] });
    expect(tracingEnabled()).toBe(false);
    expect(tracingSdkLoaded()).toBe(false);
    expect(otelSdkModulesLoaded()).toEqual([]);

    const pool = await createDatabasePool(stack.config.databaseUrls.document, { maximumPoolSize: 1 });
    try {
      const [event] = (await readOutbox(pool, 'document.created')).filter((e) => e.data.id === document.id);
      expect(event).toBeDefined();
      expect(event).not.toHaveProperty('traceparent');
    } finally {
      await pool.end();
    }
  });
});
