import { segmentsOf } from './routing.js';
import { isGatewayPath } from './web-app/paths.js';

/**
 * Which credential a request needs (ARCHITECTURE 2.1 and 5.13):
 * - `probe`: the gateway's own liveness/readiness; no credential, no rate limit.
 * - `static`: the web app's files and pages, read from disk with no service behind them, and its
 *   sign-in settings; no credential, no rate limit (a page load fetches many of them at once).
 * - `public`: no credential; rate-limited per client IP.
 * - `internal`: `X-Internal-Api-Key` and nothing else.
 * - `mcp`: `X-Mcp-Api-Key` and nothing else.
 * - `user`: a Bearer JWT.
 * - `optional`: a Bearer JWT when one is sent (verified like `user`, refused when bad), else none:
 *   attachment files, which the attachment service serves to members and, while their document
 *   is published, to anyone (ARCHITECTURE 5.9).
 */
export type Access = 'probe' | 'static' | 'public' | 'internal' | 'mcp' | 'user' | 'optional';

export function accessFor(method: string, path: string): Access {
  const s = segmentsOf(path);
  if (s[0] === 'health' && s.length === 2 && (s[1] === 'live' || s[1] === 'ready')) return 'probe';
  if (s[0] !== 'api' || s[1] !== 'v1') {
    if (method === 'GET' || method === 'HEAD') {
      // Link previews (`/p/<id>`) ask the document service: counted like the public API.
      if (s[0] === 'p') return 'public';
      if (!isGatewayPath(s) || (s[0] === 'auth' && s[1] === 'config' && s.length === 2)) return 'static';
    }
    // The gateway's own pages outside the API (docs, actuator, the dev sign-in form's POST) and
    // anything unknown (a 404).
    return 'public';
  }
  const area = s[2];
  switch (area) {
    case 'public':
    case 'docs-ui':
      return 'public';
    case 'actuator':
      return s[3] === 'health' && s.length === 4 ? 'public' : 'user';
    case 'openapi.json':
      return s.length === 3 ? 'public' : 'user';
    case 'internal':
      return 'internal';
    case 'mcp':
      return 'mcp';
    case 'attachments':
      return (method === 'GET' || method === 'HEAD') && s.length === 4 && s[3] === 'file' ? 'optional' : 'user';
    case 'invitations':
      // Only the preview of an invitation is public; accepting or declining it needs a user.
      return (method === 'GET' || method === 'HEAD') && s.length === 5 && s[3] !== '' && s[4] === 'info'
        ? 'public'
        : 'user';
    case 'email':
      // An e-mail's one-click unsubscribe link (RFC 8058): its signed token stands in for a sign-in.
      return (method === 'GET' || method === 'HEAD' || method === 'POST') && s.length === 4 && s[3] === 'unsubscribe'
        ? 'public'
        : 'user';
    default:
      return 'user';
  }
}
