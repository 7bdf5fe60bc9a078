import type { ServiceName } from '@wiki/config';
import { badRequest } from '@wiki/http';

/** Every public API path starts with this; services serve the same full paths. */
export const API_PREFIX = '/api/v1';

/**
 * The routing table of ARCHITECTURE 2.3. A pattern matches a path that equals it or continues
 * below it (`/api/v1/documents` matches `/api/v1/documents/42/children`); `:name` matches one
 * segment. The most specific pattern wins: see `routeFor`.
 */
export const ROUTES: ReadonlyArray<{ pattern: string; service: ServiceName }> = [
  { pattern: '/api/v1/documents/search', service: 'search' },
  { pattern: '/api/v1/documents/:id/export', service: 'export' },
  // Long jobs live with exports (ARCHITECTURE 5.19): tree exports, imports and their progress.
  { pattern: '/api/v1/documents/import', service: 'export' },
  { pattern: '/api/v1/workspaces/:id/export', service: 'export' },
  { pattern: '/api/v1/jobs', service: 'export' },
  { pattern: '/api/v1/documents/:id/watch', service: 'notification' },
  { pattern: '/api/v1/documents', service: 'document' },
  { pattern: '/api/v1/public/documents', service: 'document' },
  { pattern: '/api/v1/internal/documents', service: 'document' },
  { pattern: '/api/v1/workspaces', service: 'workspace' },
  { pattern: '/api/v1/invitations', service: 'workspace' },
  { pattern: '/api/v1/users', service: 'workspace' },
  { pattern: '/api/v1/email/unsubscribe', service: 'workspace' },
  { pattern: '/api/v1/comments', service: 'comment' },
  { pattern: '/api/v1/attachments', service: 'attachment' },
  { pattern: '/api/v1/notifications', service: 'notification' },
  // Webhooks live with notifications (ARCHITECTURE 5.18): they consume the same events.
  { pattern: '/api/v1/workspaces/:id/webhooks', service: 'notification' },
  { pattern: '/api/v1/webhooks', service: 'notification' },
  { pattern: '/api/v1/mcp', service: 'mcp' },
];

interface CompiledRoute {
  segments: string[];
  service: ServiceName;
  /** Static segments count more than parameters when two patterns are equally long. */
  staticCount: number;
}

// Longest pattern first; between equally long ones, the one with more literal segments.
const COMPILED: CompiledRoute[] = ROUTES.map(({ pattern, service }) => {
  const segments = pattern.split('/').filter(Boolean);
  return { segments, service, staticCount: segments.filter((s) => !s.startsWith(':')).length };
}).sort((a, b) => b.segments.length - a.segments.length || b.staticCount - a.staticCount);

/** The path of a URL without its query string. */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/**
 * Splits a path into its percent-decoded segments (a trailing slash does not add one), so that
 * access rules and routing see the path as the upstream service's router will: `/api/v1/%69nternal`
 * is the internal area, not a user route.
 */
export function segmentsOf(path: string): string[] {
  const segments = path.split('/');
  segments.shift(); // the empty string before the leading slash
  if (segments.length > 0 && segments[segments.length - 1] === '') segments.pop();
  let decoded: string[];
  try {
    decoded = segments.map((s) => (s.includes('%') ? decodeURIComponent(s) : s));
  } catch {
    throw badRequest('The request path is not valid', [{ field: 'path', message: 'has an invalid percent-encoding' }]);
  }
  // Dot segments would make the upstream see another path than the one access was decided on,
  // also when they hide behind an encoded slash or a backslash (`..%2F..%2Fworkspaces`), which
  // some servers and clients treat as a separator.
  if (
    decoded.some(
      (s) => isDotSegment(s) || ((s.includes('/') || s.includes('\\')) && s.split(/[\\/]/).some(isDotSegment)),
    )
  ) {
    throw badRequest('The request path is not valid', [
      { field: 'path', message: 'must not contain . or .. segments' },
    ]);
  }
  return decoded;
}

const isDotSegment = (segment: string) => segment === '.' || segment === '..';

/** The service that serves `path` (a path without query string), or undefined. */
export function routeFor(path: string): ServiceName | undefined {
  const segments = segmentsOf(path);
  for (const route of COMPILED) {
    if (route.segments.length > segments.length) continue;
    let matches = true;
    for (let i = 0; i < route.segments.length; i++) {
      const expected = route.segments[i];
      const actual = segments[i];
      // An empty segment (`//`) never matches, not even a parameter.
      if (actual === '' || (!expected.startsWith(':') && expected !== actual)) {
        matches = false;
        break;
      }
    }
    if (matches) return route.service;
  }
  return undefined;
}
