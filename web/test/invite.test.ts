import { createDatabasePool, sql } from '@wiki/db';
import type { Stack } from '@wiki/testing';
import type { Browser, Page } from 'puppeteer-core';
import { launchBrowser, seriousAxeViolations } from './helpers/browser.js';
import { focused, tabTo, waitForPath } from './helpers/keyboard.js';
import { startWebPlatform } from './helpers/platform.js';

/**
 * The invitation page `/invite/<token>` (issue 27 point 8, issue 28 point 7): anyone previews the
 * invitation; a signed-out invitee goes through "Sign in to accept" (the dev provider's form here,
 * the same `session.signIn` an OIDC provider gets) and comes back to accept; decline goes home;
 * the wrong person, a used, an expired and an unknown invitation each get a clear message.
 */
let stack: Stack;
let browser: Browser;
const pages: Page[] = [];
const DEV_SESSION_KEY = 'wiki.dev-session';

beforeAll(async () => {
  stack = await startWebPlatform(['workspace', 'document'], { AUTH_PROVIDER: 'dev' });
  browser = await launchBrowser();
});
afterEach(async () => {
  await Promise.all(pages.splice(0).map((page) => page.browserContext().close()));
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

interface Person {
  email: string;
  name: string;
  token: string;
}

/** A token the dev provider hands out, the way its sign-in form gets one. */
async function devSignIn(email: string, name: string): Promise<Person> {
  const res = await stack.request('POST', '/auth/dev/sign-in', { body: { email, name } });
  if (res.status !== 200) throw new Error(`dev sign-in: ${res.status} ${JSON.stringify(res.body)}`);
  return { email, name, token: res.body.accessToken };
}

async function api<T = any>(person: Person, method: string, path: string, body?: unknown): Promise<T> {
  const res = await stack.request(method, `/api/v1${path}`, { token: person.token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { data: T } | null)?.data as T;
}

/** A workspace of a new admin and an invitation to `email`; answers its token. */
async function invitation(email: string, role = 'EDITOR', message?: string) {
  const admin = await devSignIn(`admin-${Math.random().toString(36).slice(2, 8)}@example.com`, 'Alma Admin');
  const ws = await api(admin, 'POST', '/workspaces', { name: 'Garden club', icon: '🌱' });
  await api(admin, 'POST', `/workspaces/${ws.id}/members/invite`, { email, role, message });
  const [pending] = await api<any[]>(admin, 'GET', `/workspaces/${ws.id}/invitations`);
  return { admin, workspaceId: ws.id as string, id: pending.id as string, token: pending.token as string };
}

/** A page in a browser context of its own, signed in as `person` (the dev session's storage) or nobody. */
async function open(path: string, person: Person | null): Promise<Page> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  page.setDefaultTimeout(8_000);
  pages.push(page);
  if (person) {
    const stored = JSON.stringify({ accessToken: person.token, expiresAt: Date.now() + 3_600_000 });
    await page.evaluateOnNewDocument(
      `localStorage.setItem(${JSON.stringify(DEV_SESSION_KEY)}, ${JSON.stringify(stored)});`,
    );
  }
  await page.goto(`${stack.gatewayUrl}${path}`);
  return page;
}

const aria = (name: string, role: string) => `::-p-aria([name=${JSON.stringify(name)}][role="${role}"])`;

it('previews the invitation signed out, signs in through "Sign in to accept" and back, and accepts (keyboard)', async () => {
  const email = 'ines@example.com';
  const invite = await invitation(email, 'EDITOR', 'Come and write with us');
  const page = await open(`/invite/${invite.token}`, null);

  await page.waitForSelector(aria('Join Garden club', 'heading'));
  const text = (await page.evaluate('document.body.innerText')) as string;
  expect(text).toContain(`Alma Admin invited ${email} to the workspace “Garden club” as Editor`);
  expect(text).toContain('Come and write with us');
  expect(await page.$(aria('Accept', 'button'))).toBeNull();
  expect(await seriousAxeViolations(page)).toEqual([]);

  await tabTo(page, 'Sign in to accept');
  await page.keyboard.press('Enter');
  await waitForPath(page, `/sign-in?returnTo=${encodeURIComponent(`/invite/${invite.token}`)}`);
  await page.waitForSelector(aria('Email', 'textbox'));
  await page.keyboard.type(email);
  await tabTo(page, 'Name');
  await page.keyboard.type('Ines Invitee');
  await page.keyboard.press('Enter');

  await waitForPath(page, `/invite/${invite.token}`);
  await page.waitForSelector(`::-p-text(You are signed in as Ines Invitee (${email}))`);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await tabTo(page, 'Accept');
  expect((await focused(page)).tag).toBe('button');
  await page.keyboard.press('Enter');
  await waitForPath(page, `/w/${invite.workspaceId}`);
  await page.waitForSelector(aria('Garden club', 'heading'));

  const members = await api<any[]>(invite.admin, 'GET', `/workspaces/${invite.workspaceId}/members`);
  expect(members.find((m) => m.userEmail === email)).toMatchObject({ role: 'EDITOR', userName: 'Ines Invitee' });

  // The same link again: answered already, said plainly.
  await page.goto(`${stack.gatewayUrl}/invite/${invite.token}`);
  await page.waitForSelector(aria('This invitation is no longer open', 'heading'));
  await page.waitForSelector('::-p-text(accepted)');
  expect(await seriousAxeViolations(page)).toEqual([]);
});

it('declines and goes home; the invitation is closed afterwards', async () => {
  const person = await devSignIn('dan@example.com', 'Dan Decliner');
  const invite = await invitation(person.email, 'VIEWER');
  const page = await open(`/invite/${invite.token}`, person);

  const declined = page.waitForResponse((response) => response.url().endsWith(`/invitations/${invite.token}/decline`));
  await page.locator(aria('Decline', 'button')).click();
  expect((await declined).status()).toBe(204);
  await page.waitForFunction(`!location.pathname.startsWith('/invite/')`);
  expect(await api(invite.admin, 'GET', `/workspaces/${invite.workspaceId}/invitations`)).toEqual([]);
  const info = await stack.request('GET', `/api/v1/invitations/${invite.token}/info`);
  expect(info.status).toBe(410);
  const members = await api<any[]>(invite.admin, 'GET', `/workspaces/${invite.workspaceId}/members`);
  expect(members.map((m) => m.userEmail)).not.toContain(person.email);
});

it('tells the wrong person whom the invitation is for and offers to sign in as someone else', async () => {
  const other = await devSignIn('otto@example.com', 'Otto Other');
  const invite = await invitation('meant@example.com');
  const page = await open(`/invite/${invite.token}`, other);

  await page.locator(aria('Accept', 'button')).click();
  const alert = await page.waitForSelector('[role="alert"]');
  expect(await alert!.evaluate((e: any) => e.textContent)).toMatch(/another email address/);
  await page.waitForSelector('::-p-text(This invitation is for meant@example.com.)');
  expect(await seriousAxeViolations(page)).toEqual([]);

  await page.locator(aria('Sign in as someone else', 'button')).click();
  await waitForPath(page, `/sign-in?returnTo=${encodeURIComponent(`/invite/${invite.token}`)}`);
  const members = await api<any[]>(invite.admin, 'GET', `/workspaces/${invite.workspaceId}/members`);
  expect(members.map((m) => m.userEmail)).not.toContain(other.email);
});

it('says so when an invitation has expired or does not exist', async () => {
  const invite = await invitation('late@example.com');
  const pool = await createDatabasePool(stack.config.databaseUrls.workspace, { maximumPoolSize: 1 });
  try {
    await pool.query(
      sql.unsafe`UPDATE invitations SET expires_at = now() - interval '1 minute' WHERE id = ${invite.id}`,
    );
  } finally {
    await pool.end();
  }
  const page = await open(`/invite/${invite.token}`, null);
  await page.waitForSelector(aria('This invitation has expired', 'heading'));
  await page.waitForSelector('::-p-text(Ask whoever invited you to send it again.)');
  expect(await page.$(aria('Sign in to accept', 'button'))).toBeNull();
  expect(await seriousAxeViolations(page)).toEqual([]);

  await page.goto(`${stack.gatewayUrl}/invite/no-such-token`);
  await page.waitForSelector(aria('Invitation not found', 'heading'));
  await page.waitForSelector(aria('Go to your wiki', 'link'));
});
