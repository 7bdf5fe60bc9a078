import { createLimitsRedis as createRedis } from '@wiki/limits';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { startIdp, type TestIdp } from './helpers/idp.js';
import { closedUrl, sendJson } from './helpers/upstreams.js';

let idp: TestIdp;
let gw: TestGateway;

beforeAll(async () => {
  idp = await startIdp();
  gw = await startTestGateway({ idp, deps: { expectedServices: ['workspace', 'document'] } });
  gw.fakes.workspace.on((req, res) => {
    if (req.url !== '/openapi.json') return false;
    return sendJson(res, 200, {
      openapi: '3.0.3',
      info: { title: 'workspace', version: '1.0.0' },
      tags: [{ name: 'workspaces' }],
      paths: {
        '/api/v1/workspaces': {
          get: { tags: ['workspaces'], summary: 'List workspaces', responses: { 200: { description: 'ok' } } },
        },
        '/internal/users/resolve': { post: { responses: { 200: { description: 'ok' } } } },
      },
      components: { schemas: { Workspace: { type: 'object' } } },
    });
  });
  gw.fakes.document.on((req, res) => {
    if (req.url !== '/openapi.json') return false;
    return sendJson(res, 200, {
      openapi: '3.0.3',
      info: { title: 'document', version: '1.0.0' },
      paths: {
        '/api/v1/documents/{id}': { get: { summary: 'Get a document', responses: { 200: { description: 'ok' } } } },
      },
    });
  });
});
afterAll(async () => {
  await gw?.close();
  await idp?.close();
});

describe('health', () => {
  it('reports UP when every expected service and Redis are up, on both paths, without a credential', async () => {
    for (const url of ['/actuator/health', '/api/v1/actuator/health']) {
      const res = await gw.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'UP', services: { workspace: 'UP', document: 'UP' }, redis: 'UP' });
    }
    expect((await gw.app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
    expect((await gw.app.inject({ method: 'GET', url: '/health/ready' })).json()).toEqual({
      status: 'UP',
      checks: { accepting: 'UP' },
    });
  });

  it('reports DOWN with 503 when an expected service is not ready', async () => {
    let ready = false;
    gw.fakes.document.on((req, res) =>
      req.url === '/health/ready' && !ready ? sendJson(res, 503, { status: 'DOWN' }) : false,
    );
    const res = await gw.app.inject({ method: 'GET', url: '/actuator/health' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 'DOWN', services: { workspace: 'UP', document: 'DOWN' }, redis: 'UP' });
    ready = true;
    expect((await gw.app.inject({ method: 'GET', url: '/actuator/health' })).statusCode).toBe(200);
  });

  it('reports DOWN when an expected service does not run at all, or Redis is down', async () => {
    const deadRedis = createRedis((await closedUrl()).replace('http:', 'redis:'));
    deadRedis.on('error', () => undefined);
    const other = await startTestGateway({
      idp,
      without: ['export'],
      env: { EXPORT_URL: await closedUrl() },
      deps: { expectedServices: ['workspace', 'export'], redis: deadRedis },
    });
    try {
      const res = await other.app.inject({ method: 'GET', url: '/api/v1/actuator/health' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'DOWN', services: { workspace: 'UP', export: 'DOWN' }, redis: 'DOWN' });
      // ...while the gateway itself stays in rotation: it answers 503 for the missing service alone.
      expect((await other.app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
    } finally {
      await other.close();
      deadRedis.disconnect();
    }
  });
});

describe('API documentation', () => {
  it('serves the Swagger UI at /docs-ui and /api/v1/docs-ui without a credential', async () => {
    for (const url of ['/docs-ui', '/docs-ui/', '/api/v1/docs-ui']) {
      const res = await gw.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.body).toContain('swagger-ui');
    }
    const css = await gw.app.inject({ method: 'GET', url: '/docs-ui/static/swagger-ui.css' });
    expect(css.statusCode).toBe(200);
  });

  it('merges the services’ public paths into /api/v1/openapi.json, which the UI shows', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.0.3');
    // The gateway's own paths (health, the web app's sign-in settings), then the services' public ones.
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/actuator/health',
      '/api/v1/documents/{id}',
      '/api/v1/workspaces',
      '/auth/config',
    ]);
    expect(doc.paths['/api/v1/workspaces'].get.summary).toBe('List workspaces');
    expect(doc.components.schemas.Workspace).toEqual({ type: 'object' });
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.tags.map((t: { name: string }) => t.name)).toContain('workspaces');

    const shown = await gw.app.inject({ method: 'GET', url: '/api/v1/docs-ui/json' });
    expect(shown.statusCode).toBe(200);
    expect(Object.keys(shown.json().paths)).toContain('/api/v1/documents/{id}');
  });
});
