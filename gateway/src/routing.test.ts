import { accessFor } from './access.js';
import { routeFor, segmentsOf } from './routing.js';

describe('routeFor', () => {
  it.each([
    ['/api/v1/documents/search', 'search'],
    ['/api/v1/documents/search/', 'search'],
    ['/api/v1/documents/abc/export', 'export'],
    ['/api/v1/documents/abc/exports', 'document'],
    ['/api/v1/documents/import', 'export'],
    ['/api/v1/documents/imports', 'document'],
    ['/api/v1/workspaces/abc/export', 'export'],
    ['/api/v1/workspaces/abc/exports', 'workspace'],
    ['/api/v1/jobs/abc', 'export'],
    ['/api/v1/jobs/abc/download', 'export'],
    ['/api/v1/documents/abc/watch', 'notification'],
    ['/api/v1/documents/abc/watchers', 'document'],
    ['/api/v1/documents/search/watch', 'notification'],
    ['/api/v1/documents/abc/children', 'document'],
    ['/api/v1/documents', 'document'],
    ['/api/v1/public/documents/abc/ancestors', 'document'],
    ['/api/v1/internal/documents/abc/collab-state', 'document'],
    ['/api/v1/workspaces/abc/members', 'workspace'],
    ['/api/v1/invitations/tok/info', 'workspace'],
    ['/api/v1/users/me', 'workspace'],
    ['/api/v1/email/unsubscribe', 'workspace'],
    ['/api/v1/comments/documents/abc/threads', 'comment'],
    ['/api/v1/attachments/file', 'attachment'],
    ['/api/v1/notifications/stream', 'notification'],
    ['/api/v1/workspaces/abc/webhooks', 'notification'],
    ['/api/v1/workspaces/abc/webhooks/', 'notification'],
    ['/api/v1/workspaces/abc/webhook', 'workspace'],
    ['/api/v1/workspaces/abc', 'workspace'],
    ['/api/v1/webhooks/abc', 'notification'],
    ['/api/v1/webhooks/abc/deliveries/def/redeliver', 'notification'],
    ['/api/v1/mcp', 'mcp'],
    ['/api/v1/mcp/sse', 'mcp'],
  ])('%s -> %s', (path, service) => {
    expect(routeFor(path)).toBe(service);
  });

  it.each([
    '/api/v1',
    '/api/v1/documentsx',
    '/api/v1/webhooksx',
    '/api/v1/internal/workspaces',
    '/api/v1/public/workspaces',
    '/api/v1/email',
    '/api/v1/email/other',
    '/api/v2/documents',
    '/api/v1//documents',
    '/api/v1/Documents',
  ])('%s has no service', (path) => {
    expect(routeFor(path)).toBeUndefined();
  });

  it('decodes segments the way a service router will', () => {
    expect(routeFor('/api/v1/%64ocuments/search')).toBe('search');
    expect(() => segmentsOf('/api/v1/%zz')).toThrow(/not valid/);
    expect(() => segmentsOf('/api/v1/public/%2e%2e/workspaces')).toThrow(/not valid/);
    expect(() => segmentsOf('/api/v1/public/documents/..%2F..%2Fworkspaces')).toThrow(/not valid/);
    expect(() => segmentsOf('/api/v1/public/documents/..%5C..%5Cworkspaces')).toThrow(/not valid/);
    expect(() => segmentsOf('/api/v1/public/documents/..\\..\\workspaces')).toThrow(/not valid/);
    // An encoded slash alone is an ordinary character of a segment.
    expect(segmentsOf('/api/v1/documents/a%2Fb')).toEqual(['api', 'v1', 'documents', 'a/b']);
  });
});

describe('accessFor', () => {
  it.each([
    ['GET', '/health/live', 'probe'],
    ['GET', '/health/ready', 'probe'],
    ['GET', '/actuator/health', 'public'],
    ['GET', '/api/v1/actuator/health', 'public'],
    ['GET', '/docs-ui/static/x.css', 'public'],
    ['GET', '/api/v1/docs-ui', 'public'],
    ['GET', '/api/v1/openapi.json', 'public'],
    ['GET', '/api/v1/public/documents/x', 'public'],
    ['GET', '/api/v1/invitations/tok/info', 'public'],
    ['POST', '/api/v1/invitations/tok/info', 'user'],
    ['POST', '/api/v1/invitations/tok/accept', 'user'],
    ['GET', '/api/v1/invitations/tok/info/more', 'user'],
    ['GET', '/api/v1/email/unsubscribe', 'public'],
    ['HEAD', '/api/v1/email/unsubscribe', 'public'],
    ['POST', '/api/v1/email/unsubscribe', 'public'],
    ['GET', '/api/v1/email/%75nsubscribe', 'public'],
    ['PUT', '/api/v1/email/unsubscribe', 'user'],
    ['DELETE', '/api/v1/email/unsubscribe', 'user'],
    ['POST', '/api/v1/email/unsubscribe/more', 'user'],
    ['POST', '/api/v1/email/subscribe', 'user'],
    ['GET', '/api/v1/email', 'user'],
    ['GET', '/api/v1/attachments/file', 'optional'],
    ['HEAD', '/api/v1/attachments/file', 'optional'],
    ['DELETE', '/api/v1/attachments/file', 'user'],
    ['POST', '/api/v1/attachments/upload', 'user'],
    ['GET', '/api/v1/attachments/file/more', 'user'],
    ['GET', '/api/v1/attachments/document/x', 'user'],
    ['GET', '/api/v1/internal/documents/x/permission', 'internal'],
    ['GET', '/api/v1/%69nternal/documents/x/permission', 'internal'],
    ['GET', '/api/v1/mcp', 'mcp'],
    ['POST', '/api/v1/mcp/messages', 'mcp'],
    ['GET', '/api/v1/workspaces', 'user'],
    ['GET', '/api/v1/actuator/env', 'user'],
    ['GET', '/api/v1', 'user'],
    ['GET', '/', 'static'],
    ['HEAD', '/w/x/d/y', 'static'],
    ['GET', '/assets/app-1.js', 'static'],
    ['GET', '/favicon.ico', 'static'],
    ['GET', '/auth/callback', 'static'],
    ['GET', '/auth/config', 'static'],
    ['GET', '/p/x', 'public'],
    ['POST', '/auth/dev/sign-in', 'public'],
    ['GET', '/auth/other', 'public'],
    ['POST', '/w/x', 'public'],
    ['GET', '/collab', 'public'],
  ])('%s %s needs %s', (method, path, access) => {
    expect(accessFor(method, path)).toBe(access);
  });
});
