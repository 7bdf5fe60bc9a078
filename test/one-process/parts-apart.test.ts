import { randomBytes, randomUUID } from 'node:crypto';
import { IDENTITY_HEADER, mintIdentityToken } from '@wiki/auth';
import type { Config } from '@wiki/config';
import { type ListeningPart, startParts } from '@wiki/http';
import { cleanupConfig, isolatedConfig, UNUSED_IDP } from '@wiki/testing';
import { flushTracing, stopTracing } from '@wiki/tracing';
import { part as documentPart } from '../../services/document/src/part.js';
import { part as workspacePart } from '../../services/workspace/src/part.js';
import { type OtlpReceiver, startOtlpReceiver } from '../tracing/otlp-receiver.js';

/**
 * Issue 29 point 4: two services started in one process as npm start's one process starts them
 * (libs/http startParts), each from its own environment, keep their caches, metrics, tracers and
 * consumers apart. Each is given its own identity secret and its own trace collector, so that
 * anything shared between them would show: a token one accepted and cached would pass the other,
 * spans would reach the wrong collector, routes and consumers would appear in the other's /metrics.
 */
let config: Config;
let receivers: { document: OtlpReceiver; workspace: OtlpReceiver };
let parts: ListeningPart[] = [];
const secrets = { document: randomBytes(32).toString('base64url'), workspace: randomBytes(32).toString('base64url') };

const partNamed = (name: string) => {
  const found = parts.find((p) => p.name === name);
  if (!found) throw new Error(`${name} did not start`);
  return found;
};

beforeAll(async () => {
  config = isolatedConfig(UNUSED_IDP);
  receivers = { document: await startOtlpReceiver(), workspace: await startOtlpReceiver() };
  const envOf = (name: 'document' | 'workspace') => ({
    ...config.env,
    HOST: '127.0.0.1',
    DOCUMENT_PORT: '0',
    WORKSPACE_PORT: '0',
    METRICS_PORT: '0',
    INTERNAL_TOKEN_SECRET: secrets[name],
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receivers[name].url,
  });
  parts = await startParts([
    { name: 'document', main: documentPart, env: envOf('document') },
    { name: 'workspace', main: workspacePart, env: envOf('workspace') },
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(parts.map((part) => part.stop()));
  await stopTracing();
  await Promise.allSettled([receivers?.document.close(), receivers?.workspace.close()]);
  if (config) await cleanupConfig(config);
});

describe('two services in one process', () => {
  it('keep their identity caches apart: a token one verified and cached is refused by the other', async () => {
    const token = await mintIdentityToken(secrets.document, { kind: 'user', userId: randomUUID() });
    const ask = (name: string, path: string) =>
      fetch(`http://127.0.0.1:${partNamed(name).port}${path}`, { headers: { [IDENTITY_HEADER]: token } });

    // The document service verifies it (and caches it), twice to be sure the cache answered.
    for (let i = 0; i < 2; i++)
      expect((await ask('document', `/api/v1/documents/${randomUUID()}`)).status).not.toBe(401);
    // The workspace service, with its own secret and its own cache, has never accepted it.
    expect((await ask('workspace', '/api/v1/workspaces')).status).toBe(401);
    const own = await mintIdentityToken(secrets.workspace, { kind: 'user', userId: randomUUID() });
    const listed = await fetch(`http://127.0.0.1:${partNamed('workspace').port}/api/v1/workspaces`, {
      headers: { [IDENTITY_HEADER]: own },
    });
    expect(listed.status).toBe(200);
  });

  it('serve their own metrics: their routes, their service label, their consumers', async () => {
    const scrape = async (name: string) => (await fetch(`${partNamed(name).metricsUrl}/metrics`)).text();
    const [document, workspace] = await Promise.all([scrape('document'), scrape('workspace')]);
    const labels = (text: string, label: string) =>
      new Set([...text.matchAll(new RegExp(`${label}="([^"]+)"`, 'g'))].map((match) => match[1]));

    expect(labels(document, 'service')).toEqual(new Set(['document']));
    expect(labels(workspace, 'service')).toEqual(new Set(['workspace']));
    expect(document).toContain('route="/api/v1/documents/:id"');
    expect(workspace).toContain('route="/api/v1/workspaces"');
    expect(document).not.toContain('route="/api/v1/workspaces"');
    expect(workspace).not.toContain('route="/api/v1/documents/:id"');

    const documentConsumers = [...labels(document, 'consumer')];
    const workspaceConsumers = [...labels(workspace, 'consumer')];
    expect(documentConsumers.length).toBeGreaterThan(0);
    expect(workspaceConsumers.length).toBeGreaterThan(0);
    expect(documentConsumers.filter((name) => !name.startsWith('document-'))).toEqual([]);
    expect(workspaceConsumers.filter((name) => !name.startsWith('workspace-'))).toEqual([]);
  });

  it('send their spans through their own tracers, each to its own collector', async () => {
    await vi.waitFor(
      async () => {
        await flushTracing();
        expect(receivers.document.spans.some((s) => s.name === 'GET /api/v1/documents/:id')).toBe(true);
        expect(receivers.workspace.spans.some((s) => s.name === 'GET /api/v1/workspaces')).toBe(true);
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(new Set(receivers.document.spans.map((s) => s.service))).toEqual(new Set(['document']));
    expect(new Set(receivers.workspace.spans.map((s) => s.service))).toEqual(new Set(['workspace']));
  });
});
