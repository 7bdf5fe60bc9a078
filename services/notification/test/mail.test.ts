import { verifyUnsubscribeToken } from '@wiki/auth';
import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { createServiceClient } from '@wiki/service-client';
import {
  createDocument,
  eventually,
  publishEvent,
  readOutbox,
  type SignedInUser,
  type Stack,
  signInNew,
  uniqueEmail,
  workspaceWith,
} from '@wiki/testing';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyProducerEvent, type ProducerEvent } from '../src/events/producers.js';
import { gatherDigests } from '../src/mail/digest.js';
import { RELAY_INTERVAL_MS } from '../src/mail/queue.js';
import { awaitNotification, createThread, mention, replyTo, startNotificationStack } from './helpers.js';
import { rawHeader, startSmtp, type TestSmtp, unsubscribeTokenOf } from './smtp.js';

const TITLE = 'Plans <b>& "more"</b>';
const DAY_MS = 24 * 3_600_000;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

let smtp: TestSmtp;
let stack: Stack;
let pool: DatabasePool;
let workspacePool: DatabasePool;
let commentPool: DatabasePool;
let ada: SignedInUser; // owner, the one who acts
let bob: SignedInUser;
let cy: SignedInUser;
let dan: SignedInUser;
let workspace: { id: string; name: string };
let documentId: string;

beforeAll(async () => {
  smtp = await startSmtp();
  stack = await startNotificationStack({ SMTP_URL: smtp.url, MAIL_BACKOFF_MS: '100' });
  pool = await createDatabasePool(stack.config.databaseUrls.notification);
  workspacePool = await createDatabasePool(stack.config.databaseUrls.workspace);
  commentPool = await createDatabasePool(stack.config.databaseUrls.comment);
  ada = await signInNew(stack, 'Ada Owner');
  bob = await signInNew(stack, 'Bob Editor');
  cy = await signInNew(stack, 'Cy Editor');
  dan = await signInNew(stack, 'Dan Editor');
  workspace = await workspaceWith(stack, ada, [
    [bob, 'EDITOR'],
    [cy, 'EDITOR'],
    [dan, 'EDITOR'],
  ]);
  documentId = (await createDocument(stack, ada, { workspaceId: workspace.id, title: TITLE })).id;
});
afterAll(async () => {
  await pool?.end();
  await workspacePool?.end();
  await commentPool?.end();
  await stack?.stop();
  await smtp?.close();
});

/**
 * The messages to `address` whose subject matches, once there are `count` of them (failing if more
 * arrive meanwhile). Members joined by invitation: their invitation may have been e-mailed too.
 */
const inbox = (address: string, subject: RegExp, count = 1) =>
  eventually(async () => {
    const got = smtp.to(address).filter((m) => subject.test(m.subject ?? ''));
    if (got.length < count) throw new Error(`${got.length} of ${count} messages to ${address}`);
    expect(got).toHaveLength(count);
    return got;
  });

/** The user's e-mail choices as the workspace service would publish them, applied once stored here. */
async function choose(user: SignedInUser, data: { emailNotifications?: Record<string, string>; locale?: string }) {
  await publishEvent(stack.config, {
    type: 'user.preferences_changed',
    data: { userId: user.id, notificationsEnabled: true, ...data } as never,
  });
  await eventually(async () =>
    expect(
      await pool.maybeOne(sql.unsafe`SELECT locale FROM notification_preferences WHERE user_id = ${user.id}`),
    ).not.toBeNull(),
  );
}

/** Every outbox row handled (sent or dropped): nothing more is on its way. */
const outboxSettled = () =>
  eventually(async () =>
    expect(await pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM mail_outbox WHERE sent_at IS NULL`)).toBe(0),
  );

/** The user's messages of notifications (not of their invitations) in the outbox. */
const outboxRowsOf = (userId: string) =>
  pool.anyFirst(sql.type(z.object({ key: z.string() }))`
    SELECT key FROM mail_outbox WHERE user_id = ${userId} AND kind = 'notification'`);

describe('e-mail of notifications', () => {
  it('a mention is e-mailed at once: title, link to its thread, text and HTML, one-click unsubscribe', async () => {
    const thread = await createThread(stack, ada, documentId, `Look ${mention(bob)}`);
    const [mail] = (await inbox(bob.email, /mentioned/)) as [ParsedMail];
    // The URL's credentials reached the server (on every connection: other messages of the file may open more).
    expect(smtp.logins.length).toBeGreaterThan(0);
    expect(new Set(smtp.logins)).toEqual(new Set(['wiki-mailer']));
    expect(mail.from?.value).toEqual([{ name: 'Wiki', address: 'wiki@localhost' }]);
    expect(mail.subject).toBe(`Ada Owner mentioned you on “${TITLE}”`);
    const link = `http://wiki.test/w/${workspace.id}/d/${documentId}#thread-${thread.id}`;
    expect(mail.text).toContain(`Ada Owner mentioned you in a comment on “${TITLE}”.`);
    expect(mail.text).toContain(link);
    expect(mail.html).toContain(`href="${link}"`);
    // The title is text in the HTML, never markup.
    expect(mail.html).toContain('Plans &lt;b&gt;&amp; &quot;more&quot;&lt;/b&gt;');
    expect(mail.html).not.toContain('<b>');

    expect(rawHeader(mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    const { url, token } = unsubscribeTokenOf(mail);
    expect(url.startsWith('http://wiki.test/api/v1/email/unsubscribe?token=')).toBe(true);
    expect(verifyUnsubscribeToken(stack.config.internalTokenSecret, token)).toEqual({
      userId: bob.id,
      type: 'COMMENT_MENTION',
    });
    expect(mail.text).toContain(url);
    expect(mail.html).toContain(url.replace(/&/g, '&amp;'));
  });

  it('replies in digest mode arrive only in the digest: one message listing them all, once per window', async () => {
    const thread = await createThread(stack, cy, documentId, 'A question for the room');
    await replyTo(stack, bob, thread.id, 'An answer');
    await replyTo(stack, ada, thread.id, 'Another answer');
    await eventually(async () => {
      const replies = await pool.anyFirst(sql.type(z.object({ id: z.string() }))`
        SELECT id FROM notifications WHERE user_id = ${cy.id} AND type = 'COMMENT_REPLY' AND comment_thread_id = ${thread.id}`);
      expect(replies).toHaveLength(2);
      const waiting = await pool.oneFirst(sql.unsafe`
        SELECT count(*)::int FROM mail_digest_items WHERE notification_id = ANY(${sql.array(replies, 'uuid')}) AND digest_key IS NULL`);
      expect(waiting).toBe(2);
    });
    // Nothing was queued for them: no instant message is on its way.
    expect(await outboxRowsOf(cy.id)).toEqual([]);
    expect(smtp.to(cy.email).filter((m) => /repl/.test(m.subject ?? ''))).toEqual([]);

    // The window ends: the next round makes the digest; a second round in that window makes none.
    const later = new Date(Date.now() + DAY_MS);
    expect(await gatherDigests(pool, DAY_MS, later)).toBeGreaterThanOrEqual(1);
    expect(await gatherDigests(pool, DAY_MS, later)).toBe(0);
    const [digest] = (await inbox(cy.email, /updates from your wiki/)) as [ParsedMail];
    expect(digest.subject).toBe('2 updates from your wiki');
    expect(digest.text).toContain(`Bob Editor replied in a thread on “${TITLE}”.`);
    expect(digest.text).toContain(`Ada Owner replied in a thread on “${TITLE}”.`);
    expect(digest.text).toContain(`http://wiki.test/w/${workspace.id}/d/${documentId}#thread-${thread.id}`);
    expect(digest.html).toContain('<li>');
    expect(verifyUnsubscribeToken(stack.config.internalTokenSecret, unsubscribeTokenOf(digest).token)).toEqual({
      userId: cy.id,
      type: '*',
    });
    await outboxSettled();
    expect(smtp.to(cy.email).filter((m) => /your wiki/.test(m.subject ?? ''))).toHaveLength(1);
  });

  it('`off` sends nothing (not even a digest item); the locale picks the wording (German)', async () => {
    await choose(dan, { emailNotifications: { COMMENT_MENTION: 'off' } });
    await choose(bob, { locale: 'de-AT' });
    const thread = await createThread(stack, ada, documentId, `Both: ${mention(dan)} ${mention(bob)}`);
    const [german] = (await inbox(bob.email, /erwähnt/)) as [ParsedMail];
    expect(german.subject).toBe(`Ada Owner hat Sie in „${TITLE}“ erwähnt`);
    expect(german.text).toContain('Im Wiki öffnen');
    expect(german.text).toContain(`#thread-${thread.id}`);
    // Dan's notification came from the same event, and no message or digest item with it.
    const n = await awaitNotification(stack, dan, 'COMMENT_MENTION', (x) => x.references.commentThreadId === thread.id);
    expect(await outboxRowsOf(dan.id)).toEqual([]);
    expect(
      await pool.anyFirst(sql.unsafe`SELECT user_id FROM mail_digest_items WHERE notification_id = ${n.id}`),
    ).toEqual([]);
    expect(smtp.to(dan.email).filter((m) => /mention/.test(m.subject ?? ''))).toEqual([]);
  });
});

describe('e-mail of invitations', () => {
  it('an invitation to a new address arrives with its link, which works; no unsubscribe (no user)', async () => {
    const email = uniqueEmail('newcomer');
    const invited = await stack.request('POST', `/api/v1/workspaces/${workspace.id}/members/invite`, {
      token: ada.token,
      body: { email, role: 'COMMENTER' },
    });
    expect(invited.status).toBe(201);
    const [mail] = (await inbox(email, /invited you/)) as [ParsedMail];
    expect(mail.subject).toBe(`Ada Owner invited you to “${workspace.name}”`);
    expect(mail.text).toContain(`Ada Owner invited you to join “${workspace.name}” as a commenter.`);
    expect(mail.text).toContain(invited.body.data.inviteLink);
    expect(rawHeader(mail, 'List-Unsubscribe')).toBeUndefined();
    expect(mail.text).not.toContain('unsubscribe');

    const token = /\/invite\/([A-Za-z0-9_-]+)/.exec(mail.text ?? '')?.[1];
    const newcomer = await stack.signIn(email, 'New Comer');
    const accepted = await stack.request('POST', `/api/v1/invitations/${token}/accept`, { token: newcomer.token });
    expect(accepted.status).toBe(200);
    expect((await stack.request('GET', `/api/v1/workspaces/${workspace.id}`, { token: newcomer.token })).status).toBe(
      200,
    );
  });

  it('a redelivered event sends no second message (an invitation, a mention)', async () => {
    const email = uniqueEmail('once');
    const invited = await stack.request('POST', `/api/v1/workspaces/${workspace.id}/members/invite`, {
      token: ada.token,
      body: { email, role: 'VIEWER' },
    });
    expect(invited.status).toBe(201);
    await inbox(email, /invited you/);
    await choose(dan, { emailNotifications: { COMMENT_MENTION: 'instant' } });
    const thread = await createThread(stack, ada, documentId, `Once: ${mention(dan)}`);
    await inbox(dan.email, /mentioned/);

    const invitation = (await readOutbox(workspacePool, 'invitation.created')).find((e) => e.data.email === email);
    const comment = (await readOutbox(commentPool, 'comment.added')).find((e) => e.data.threadId === thread.id);
    expect(invitation && comment).toBeTruthy();
    // A replay past the consumer's record (an older checkpoint): the handler itself, twice each.
    const peers = createServiceClient({ config: stack.config, service: 'notification', logger: silent });
    for (const event of [invitation, comment, invitation, comment]) {
      await pool.transaction((tx) =>
        applyProducerEvent(event as unknown as ProducerEvent, tx, { peers, logger: silent }),
      );
    }
    expect(
      await pool.oneFirst(
        sql.unsafe`SELECT count(*)::int FROM mail_outbox WHERE key = ${`invitation:${invitation?.id}`}`,
      ),
    ).toBe(1);
    // The relay's rounds would have queued anything the replays wrote: none is waiting, none came.
    await new Promise((resolve) => setTimeout(resolve, RELAY_INTERVAL_MS + 500));
    await outboxSettled();
    expect(smtp.to(email)).toHaveLength(1);
    expect(smtp.to(dan.email).filter((m) => /mentioned/.test(m.subject ?? ''))).toHaveLength(1);
  });
});
