import type { AuthSettings } from '@wiki/auth';

/**
 * The Content-Security-Policy of the web app's HTML answers (ARCHITECTURE 5.17): scripts only
 * from the gateway's origin (plus the exact inline scripts index.html holds, by hash), inline
 * styles allowed (Mantine writes `<style>` elements for its CSS variables), images from anywhere
 * over https (cover images), and network access to the gateway itself (`'self'` also covers
 * `ws:`/`wss:` to the same host in CSP 3 browsers: the test checks it in Chromium) plus, under
 * OIDC, the issuer: discovery, token and silent renewal in an iframe, whose page comes back to
 * ours (so under OIDC the app may frame itself; otherwise nobody may). docs/DECISIONS.md, issue 27.
 */
export function contentSecurityPolicy(
  auth: Pick<AuthSettings, 'provider' | 'issuer'>,
  scriptHashes: string[] = [],
): string {
  const issuer = auth.provider === 'oidc' && auth.issuer ? new URL(auth.issuer).origin : undefined;
  const withIssuer = (...sources: string[]) => (issuer ? [...sources, issuer] : sources);
  const directives: Array<[string, string[]]> = [
    ['default-src', ["'self'"]],
    ['script-src', ["'self'", ...scriptHashes.map((hash) => `'${hash}'`)]],
    ['style-src', ["'self'", "'unsafe-inline'"]],
    ['img-src', ["'self'", 'data:', 'blob:', 'https:']],
    ['media-src', ["'self'", 'blob:', 'https:']],
    ['font-src', ["'self'", 'data:']],
    ['connect-src', withIssuer("'self'")],
    ['frame-src', issuer ? ["'self'", issuer] : ["'none'"]],
    // Only the silent-renewal page needs framing (by the app itself), and only under OIDC.
    ['frame-ancestors', issuer ? ["'self'"] : ["'none'"]],
    ['base-uri', ["'self'"]],
    ['form-action', withIssuer("'self'")],
    ['object-src', ["'none'"]],
  ];
  return directives.map(([name, sources]) => `${name} ${sources.join(' ')}`).join('; ');
}

/** Headers every HTML answer of the web app carries besides its CSP. */
export const HTML_SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
} as const;
