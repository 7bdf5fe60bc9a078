import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyUnsubscribeToken } from '@wiki/auth';
import { createDocument, eventually, type SignedInUser, type Stack, signInNew, workspaceWith } from '@wiki/testing';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createThread, mention, startNotificationStack } from './helpers.js';
import { rawHeader, unsubscribeTokenOf } from './smtp.js';

let dir: string;
let stack: Stack;
let ada: SignedInUser;
let bob: SignedInUser;
let workspaceId: string;
let documentId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wiki-mail-'));
  // No SMTP_URL: messages are written to MAIL_DIR.
  stack = await startNotificationStack({ MAIL_DIR: dir });
  ada = await signInNew(stack, 'Ada Owner');
  bob = await signInNew(stack, 'Bob Editor');
  workspaceId = (await workspaceWith(stack, ada, [[bob, 'EDITOR']])).id;
  documentId = (await createDocument(stack, ada, { workspaceId, title: 'Local mail' })).id;
});
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('without SMTP_URL each message is an .eml file in MAIL_DIR that parses as the message sent', async () => {
  const thread = await createThread(stack, ada, documentId, `For you ${mention(bob)}`);
  const mail = await eventually(async () => {
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.eml'))) {
      const parsed = await simpleParser(readFileSync(join(dir, name)));
      if (parsed.subject?.includes('mentioned')) return parsed;
    }
    throw new Error('no mention written yet');
  });
  expect(mail.to && !Array.isArray(mail.to) ? mail.to.value[0]?.address : null).toBe(bob.email.toLowerCase());
  expect(mail.subject).toBe('Ada Owner mentioned you on “Local mail”');
  expect(mail.text).toContain(`http://wiki.test/w/${workspaceId}/d/${documentId}#thread-${thread.id}`);
  expect(mail.html).toContain('Local mail');
  expect(rawHeader(mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
  expect(verifyUnsubscribeToken(stack.config.internalTokenSecret, unsubscribeTokenOf(mail).token)?.userId).toBe(bob.id);
  expect(mail.messageId).toMatch(/^<notification-[0-9a-f-]{36}@wiki\.test>$/);
});
