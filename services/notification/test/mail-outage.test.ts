import { createDatabasePool, type DatabasePool, sql, z } from '@wiki/db';
import { createDocument, eventually, type SignedInUser, type Stack, signInNew, workspaceWith } from '@wiki/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createThread, mention, startNotificationStack } from './helpers.js';
import { freePort, smtpUrlFor, startSmtp, type TestSmtp } from './smtp.js';

let port: number;
let smtp: TestSmtp | undefined;
let stack: Stack;
let pool: DatabasePool;
let ada: SignedInUser;
let bob: SignedInUser;
let documentId: string;

beforeAll(async () => {
  // The mail server is down at first: nothing listens on its port.
  port = await freePort();
  stack = await startNotificationStack({ SMTP_URL: smtpUrlFor(port), MAIL_BACKOFF_MS: '100', MAIL_ATTEMPTS: '30' });
  pool = await createDatabasePool(stack.config.databaseUrls.notification);
  ada = await signInNew(stack, 'Ada Owner');
  bob = await signInNew(stack, 'Bob Editor');
  const workspace = await workspaceWith(stack, ada, [[bob, 'EDITOR']]);
  documentId = (await createDocument(stack, ada, { workspaceId: workspace.id, title: 'Outage notes' })).id;
});
afterAll(async () => {
  await pool?.end();
  await stack?.stop();
  await smtp?.close();
});

const mentionsTo = () => (smtp?.to(bob.email) ?? []).filter((m) => /mentioned/.test(m.subject ?? ''));

it('a mail server that is down loses nothing: the message waits, is retried, and arrives once it is back, once', async () => {
  const thread = await createThread(stack, ada, documentId, `Are you there ${mention(bob)}?`);
  const key = await eventually(async () => {
    const row = await pool.maybeOne(sql.type(z.object({ key: z.string(), queued: z.boolean() }))`
      SELECT o.key, o.queued_at IS NOT NULL AS queued FROM mail_outbox o JOIN notifications n ON n.id = o.notification_id
      WHERE n.user_id = ${bob.id} AND n.comment_thread_id = ${thread.id}`);
    expect(row?.queued).toBe(true);
    return row!.key;
  });
  // A few tries fail meanwhile (refused connections); the message stays unsent.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const unsent = () => pool.oneFirst(sql.unsafe`SELECT sent_at IS NULL FROM mail_outbox WHERE key = ${key}`);
  expect(await unsent()).toBe(true);

  smtp = await startSmtp(port);
  await eventually(() => expect(mentionsTo()).toHaveLength(1), { timeoutMs: 20_000 });
  await eventually(async () => expect(await unsent()).toBe(false));
  // Later tries and the relay's rounds send nothing more.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(mentionsTo()).toHaveLength(1);
  expect(mentionsTo()[0]?.text).toContain(`#thread-${thread.id}`);
});
