import { ERROR_CODES, ERROR_REASONS } from '@wiki/http';
import type { Stack } from '@wiki/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HTTP_SERVICES } from '../http-services.js';
import { startPlatform } from '../platform.js';

/**
 * Issue 25, point 7: every operation of the merged OpenAPI document (as the gateway serves it,
 * from the running services) lists the error answers it can give, each as the error envelope of
 * ARCHITECTURE 5.1 described with its code. A route added without them fails here, by name.
 */
type Json = Record<string, any>;

/**
 * Error answers that are not the envelope, on purpose: the gateway's health report, and the MCP
 * protocol's own JSON-RPC refusal of a stream.
 */
const NOT_ENVELOPED = new Set(['GET /actuator/health 503', 'GET /api/v1/mcp 405']);
/**
 * The gateway's own operations that call no service and count against no limit: the health
 * report (which lists no other failures) and the web app's sign-in settings (answered from memory).
 */
const GATEWAY_OWN = new Set(['GET /actuator/health', 'GET /auth/config']);
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

let stack: Stack;
let doc: Json;

beforeAll(async () => {
  stack = await startPlatform(HTTP_SERVICES);
  const token = await stack.tokenFor('openapi-reader@example.com');
  const res = await stack.request('GET', '/api/v1/openapi.json', { token });
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => stack?.stop());

interface Operation {
  name: string;
  op: Json;
}

function operations(): Operation[] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ name: `${m.toUpperCase()} ${path}`, op: item[m] as Json })),
  );
}

function errorStatuses(op: Json): number[] {
  return Object.keys(op.responses ?? {})
    .map(Number)
    .filter((status) => status >= 400);
}

/** The statuses an operation must list, from what it takes and whether it needs a credential. */
function expectedStatuses(op: Json): number[] {
  const params = (op.parameters ?? []) as Json[];
  const takesInput = params.length > 0 || op.requestBody !== undefined;
  const security = op.security as Json[] | undefined;
  const needsCredential = !(Array.isArray(security) && security.length === 0);
  // The gateway limits every request but the collaboration server's (internal key).
  const internalOnly = Boolean(security?.length && security.every((s) => 'internalApiKey' in s));
  return [
    503,
    ...(takesInput ? [400] : []),
    ...(needsCredential ? [401] : []),
    ...(params.some((p) => p.in === 'path') ? [404] : []),
    ...(internalOnly ? [] : [429]),
  ];
}

it('serves every service’s operations', () => {
  const paths = Object.keys(doc.paths);
  for (const path of [
    '/api/v1/workspaces',
    '/api/v1/documents/{id}',
    '/api/v1/comments/{commentId}',
    '/api/v1/documents/search',
    '/api/v1/attachments/upload',
    '/api/v1/notifications',
    '/api/v1/documents/{id}/export',
    '/api/v1/mcp',
  ])
    expect(paths).toContain(path);
  expect(operations().length).toBeGreaterThan(60);
});

it('lists the error answers of every operation', () => {
  const missing = operations()
    .filter(({ name }) => !GATEWAY_OWN.has(name))
    .flatMap(({ name, op }) => {
      const listed = errorStatuses(op);
      const lacking = expectedStatuses(op).filter((status) => !listed.includes(status));
      return lacking.length ? [`${name} lacks ${lacking.join(', ')}`] : [];
    });
  expect(missing).toEqual([]);
});

it('describes every error answer as the envelope, with its catalogued code', () => {
  const wrong = operations().flatMap(({ name, op }) =>
    errorStatuses(op)
      .filter((status) => !NOT_ENVELOPED.has(`${name} ${status}`))
      .flatMap((status) => {
        const response = op.responses[status] as Json;
        const schema = response.content?.['application/json']?.schema as Json | undefined;
        const error = schema?.properties?.error?.properties as Json | undefined;
        const code = /^([A-Z_]+):/.exec(String(response.description))?.[1];
        const problems = [
          ...(schema?.properties?.success?.type === 'boolean' && error?.code && error?.message && error?.details
            ? []
            : ['no error envelope']),
          ...(error?.reason?.enum?.length === Object.keys(ERROR_REASONS).length ? [] : ['no catalogued reasons']),
          ...(code && code in ERROR_CODES ? [] : ['no catalogued code opening its description']),
        ];
        return problems.map((problem) => `${name} ${status}: ${problem}`);
      }),
  );
  expect(wrong).toEqual([]);
});

it('names the domain reasons a refusal may carry', () => {
  const conflict = doc.paths['/api/v1/documents/{id}'].put.responses['409'];
  expect(conflict.description).toMatch(/^CONFLICT: .*reason: DOCUMENT_ARCHIVED/);
  const gone = doc.paths['/api/v1/invitations/{token}/accept'].post.responses['410'];
  expect(gone.description).toContain('INVITATION_EXPIRED');
  const limited = doc.paths['/api/v1/documents/{id}'].get.responses['429'];
  expect(limited.headers['Retry-After'].schema).toEqual({ type: 'integer' });
});
