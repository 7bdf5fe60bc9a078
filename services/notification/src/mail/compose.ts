import { signUnsubscribeToken } from '@wiki/auth';
import type { NotificationType } from '@wiki/events';
import { escapeAttribute, escapeUTF8 } from 'entities';
import type { Catalogue } from './catalogue.js';

/** One message as the transport sends it. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

/** What a notification's message is about (the stored names and where it points). */
export interface AboutNotification {
  type: NotificationType;
  actorName: string | null;
  workspaceName: string | null;
  documentTitle: string | null;
  workspaceId: string | null;
  documentId: string | null;
  commentThreadId: string | null;
  metadata: Record<string, unknown>;
}

/** The web app's page of what a notification is about: the document (and its thread), else the workspace. */
export function linkOf(base: string, n: Pick<AboutNotification, 'workspaceId' | 'documentId' | 'commentThreadId'>) {
  if (n.workspaceId && n.documentId) {
    const thread = n.commentThreadId ? `#thread-${n.commentThreadId}` : '';
    return `${base}/w/${n.workspaceId}/d/${n.documentId}${thread}`;
  }
  return n.workspaceId ? `${base}/w/${n.workspaceId}` : `${base}/`;
}

/** The one-click link (RFC 8058) of one type, or `*` for every type; the workspace service serves it. */
export function unsubscribeUrl(base: string, secret: string, userId: string, type: NotificationType | '*') {
  const token = signUnsubscribeToken(secret, { userId, type });
  return `${base}/api/v1/email/unsubscribe?token=${encodeURIComponent(token)}`;
}

/** The headers a mail client shows its unsubscribe button from (RFC 2369, RFC 8058 one-click). */
export function unsubscribeHeaders(url: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

function sentence(n: AboutNotification, c: Catalogue) {
  const role = typeof n.metadata.role === 'string' ? n.metadata.role : undefined;
  return c.notification(n.type, {
    actor: n.actorName ?? '',
    document: n.documentTitle ?? '',
    workspace: n.workspaceName ?? '',
    role,
  });
}

/** Text and HTML of one body: paragraphs (each escaped) and links, then the unsubscribe link. */
interface Body {
  paragraphs: string[];
  links: { label: string; url: string }[];
  unsubscribe?: { label: string; url: string };
}

function render(body: Body, lang: string): { text: string; html: string } {
  const text = [
    ...body.paragraphs,
    ...body.links.map((l) => `${l.label}: ${l.url}`),
    ...(body.unsubscribe ? ['--', `${body.unsubscribe.label}: ${body.unsubscribe.url}`] : []),
  ].join('\n\n');
  const a = (l: { label: string; url: string }) => `<a href="${escapeAttribute(l.url)}">${escapeUTF8(l.label)}</a>`;
  const html = [
    `<!doctype html><html lang="${escapeAttribute(lang)}"><head><meta charset="utf-8"></head><body>`,
    ...body.paragraphs.map((p) => `<p>${escapeUTF8(p)}</p>`),
    ...body.links.map((l) => `<p>${a(l)}</p>`),
    body.unsubscribe ? `<hr><p style="font-size:small">${a(body.unsubscribe)}</p>` : '',
    '</body></html>',
  ].join('\n');
  return { text: `${text}\n`, html };
}

export interface Recipient {
  userId: string;
  email: string;
}

/** The message of one notification sent at once. */
export function notificationMail(
  n: AboutNotification,
  to: Recipient,
  c: Catalogue,
  links: { base: string; secret: string },
): Mail {
  const { subject, line } = sentence(n, c);
  const unsubscribe = unsubscribeUrl(links.base, links.secret, to.userId, n.type);
  return {
    to: to.email,
    subject,
    ...render(
      {
        paragraphs: [line],
        links: [{ label: c.open, url: linkOf(links.base, n) }],
        unsubscribe: { label: c.unsubscribe, url: unsubscribe },
      },
      c.lang,
    ),
    headers: unsubscribeHeaders(unsubscribe),
  };
}

/** One digest: every item with its link; its unsubscribe link stops every type. */
export function digestMail(
  items: readonly (AboutNotification & { link?: string })[],
  to: Recipient,
  c: Catalogue,
  links: { base: string; secret: string; hours: number },
): Mail {
  const unsubscribe = unsubscribeUrl(links.base, links.secret, to.userId, '*');
  const lines = items.map((n) => ({ label: sentence(n, c).line, url: n.link ?? linkOf(links.base, n) }));
  const text = [
    c.digestIntro(links.hours),
    ...lines.map((l) => `- ${l.label}\n  ${l.url}`),
    '--',
    `${c.unsubscribeDigest}: ${unsubscribe}`,
  ].join('\n\n');
  const html = [
    `<!doctype html><html lang="${escapeAttribute(c.lang)}"><head><meta charset="utf-8"></head><body>`,
    `<p>${escapeUTF8(c.digestIntro(links.hours))}</p>`,
    '<ul>',
    ...lines.map((l) => `<li><a href="${escapeAttribute(l.url)}">${escapeUTF8(l.label)}</a></li>`),
    '</ul>',
    `<hr><p style="font-size:small"><a href="${escapeAttribute(unsubscribe)}">${escapeUTF8(c.unsubscribeDigest)}</a></p>`,
    '</body></html>',
  ].join('\n');
  return {
    to: to.email,
    subject: c.digestSubject(items.length),
    text: `${text}\n`,
    html,
    headers: unsubscribeHeaders(unsubscribe),
  };
}

export interface AboutInvitation {
  email: string;
  workspaceName: string;
  inviterName: string | null;
  role: string;
  message: string | null;
  expiresAt: string;
  link: string;
}

/**
 * An invitation to its address. Only a known user (`userId`) can unsubscribe: an address with no
 * user has no preferences to change, so its message carries no unsubscribe link or header.
 */
export function invitationMail(
  inv: AboutInvitation,
  userId: string | null,
  c: Catalogue,
  links: { base: string; secret: string },
): Mail {
  const inviter = inv.inviterName ?? '';
  const unsubscribe = userId ? unsubscribeUrl(links.base, links.secret, userId, 'WORKSPACE_INVITATION') : null;
  const paragraphs = [c.invitationLine(inviter, inv.workspaceName, inv.role)];
  if (inv.message) paragraphs.push(`${c.invitationNote} ${inv.message}`);
  paragraphs.push(c.expires(new Date(inv.expiresAt)));
  return {
    to: inv.email,
    subject: c.invitationSubject(inviter, inv.workspaceName),
    ...render(
      {
        paragraphs,
        links: [{ label: c.accept, url: inv.link }],
        unsubscribe: unsubscribe ? { label: c.unsubscribe, url: unsubscribe } : undefined,
      },
      c.lang,
    ),
    headers: unsubscribe ? unsubscribeHeaders(unsubscribe) : {},
  };
}
