/**
 * Which paths outside `/api/v1` are the gateway's own (answered as they always were: an unknown
 * one is the JSON 404) and which are the web app's (ARCHITECTURE 5.17), by their decoded segments
 * (routing.ts segmentsOf).
 */

/** First segments that never reach the web app: the API, collaboration, docs, health. */
const GATEWAY_AREAS = new Set(['api', 'collab', 'docs-ui', 'health', 'actuator', 'openapi.json', 'metrics']);

/** Whether the path is the gateway's: its areas, and `/auth/**` but the app's `/auth/callback`. */
export function isGatewayPath(segments: readonly string[]): boolean {
  const [first] = segments;
  if (first === undefined) return false;
  if (first === 'auth') return !isSignInCallback(segments);
  return GATEWAY_AREAS.has(first);
}

function isSignInCallback(segments: readonly string[]): boolean {
  return segments.length === 2 && segments[0] === 'auth' && segments[1] === 'callback';
}

/** Pages of the app (5.17): always its index.html, whatever files the build holds. */
export function isAppRoute(segments: readonly string[]): boolean {
  const [first] = segments;
  if (first === undefined) return true;
  if (first === 'w' || first === 'invite' || first === 'p') return true;
  if (segments.length === 1 && (first === 'settings' || first === 'sign-in')) return true;
  return isSignInCallback(segments);
}

/** A last segment with a file extension: a missing file, not a page, when nothing is there. */
export function looksLikeFile(segments: readonly string[]): boolean {
  const last = segments[segments.length - 1];
  return last !== undefined && /\.[A-Za-z0-9]{1,10}$/.test(last);
}

/**
 * The path relative to the app's folder when every segment may name a file there: no hidden
 * names (`.env`), no separators or NUL hidden inside a decoded segment, nothing empty.
 */
export function relativeFilePath(segments: readonly string[]): string | undefined {
  if (segments.length === 0) return undefined;
  for (const segment of segments) {
    if (segment === '' || segment.startsWith('.') || /[/\\\0]/.test(segment)) return undefined;
  }
  return segments.join('/');
}
