import { createHash } from 'node:crypto';

/**
 * The small HTML pages of one-click unsubscribe (ARCHITECTURE 5.18): no scripts, one inline style
 * allowed by its hash, nothing loaded from anywhere, a form that may post only to this origin.
 */

export const UNSUBSCRIBE_PATH = '/api/v1/email/unsubscribe';

const STYLE =
  'body{font-family:system-ui,sans-serif;margin:0;padding:3rem 1rem;background:#f8f9fa;color:#212529}' +
  'main{max-width:32rem;margin:0 auto;background:#fff;padding:2rem;border-radius:8px;border:1px solid #dee2e6}' +
  'h1{font-size:1.5rem;margin-top:0}button{font:inherit;padding:.5rem 1.25rem;border-radius:4px;border:0;' +
  'background:#1864ab;color:#fff;cursor:pointer}button:focus-visible{outline:3px solid #0b3d6e;outline-offset:2px}' +
  'a{color:#1864ab}';

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** Headers of every answer of the unsubscribe route, its refusals included. */
export const UNSUBSCRIBE_HEADERS = {
  'content-security-policy': [
    "default-src 'none'",
    `style-src 'sha256-${STYLE_HASH}'`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; '),
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
} as const;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

const settingsHint =
  '<p>You can choose which e-mails you get at any time in <a href="/settings">your settings</a>.</p>';

/** What GET shows: what would be turned off, and the button that does it (a GET changes nothing). */
export function confirmUnsubscribePage(what: string, email: string, token: string): string {
  const action = `${UNSUBSCRIBE_PATH}?token=${encodeURIComponent(token)}`;
  return page(
    'Unsubscribe',
    `<h1>Unsubscribe</h1>
<p>Stop sending <strong>${escapeHtml(what)}</strong> to ${escapeHtml(email)}?</p>
<form method="post" action="${escapeHtml(action)}">
<button type="submit">Unsubscribe</button>
</form>
${settingsHint}`,
  );
}

/** What POST answers, the first time and every time after. */
export function unsubscribedPage(what: string, email: string): string {
  return page(
    'Unsubscribed',
    `<h1>Unsubscribed</h1>
<p>${escapeHtml(email)} will no longer get ${escapeHtml(what)}.</p>
${settingsHint}`,
  );
}

/** A link that was cut, changed, or signed by someone else. */
export function invalidLinkPage(): string {
  return page(
    'Link not valid',
    `<h1>This unsubscribe link is not valid</h1>
<p>It may have been cut short or changed on the way. Please open the link from the e-mail again.</p>
${settingsHint}`,
  );
}
