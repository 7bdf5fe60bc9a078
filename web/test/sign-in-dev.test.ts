import type { Stack } from '@wiki/testing';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { chooseMenuItem, launchBrowser, seriousAxeViolations } from './helpers/browser.js';
import { focused, tabTo, waitForPath } from './helpers/keyboard.js';
import { startWebPlatform } from './helpers/platform.js';

/**
 * The dev provider's sign-in form (AUTH_PROVIDER=dev, ARCHITECTURE 5.17): any e-mail signs in as
 * that person through the gateway's `POST /auth/dev/sign-in`, back to the page they opened; a
 * token the API refuses brings the form back and then the page; signing out says so.
 */
let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const TOKEN_KEY = 'wiki.dev-session';

beforeAll(async () => {
  stack = await startWebPlatform(['workspace', 'document'], { AUTH_PROVIDER: 'dev' });
  browser = await launchBrowser();
  context = await browser.createBrowserContext();
  page = await context.newPage();
  page.setDefaultTimeout(8000);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function heldToken(): Promise<string | null> {
  const stored = (await page.evaluate(`localStorage.getItem(${JSON.stringify(TOKEN_KEY)})`)) as string | null;
  return stored ? (JSON.parse(stored) as { accessToken: string }).accessToken : null;
}

it('asks for an e-mail and a name, then opens the page the person asked for (keyboard only)', async () => {
  await page.goto(`${stack.gatewayUrl}/settings`);
  await waitForPath(page, `/sign-in?returnTo=${encodeURIComponent('/settings')}`);
  await page.waitForSelector('::-p-aria([name="Sign in to the wiki"][role="heading"])');
  expect(await seriousAxeViolations(page)).toEqual([]);

  // The e-mail field has the focus on arrival.
  expect(await focused(page)).toMatchObject({ tag: 'input', name: 'Email' });
  await page.keyboard.type('dora@example.com');
  await tabTo(page, 'Name');
  await page.keyboard.type('Dora Dev');
  await tabTo(page, 'Sign in');
  await page.keyboard.press('Enter');

  await waitForPath(page, '/settings');
  await page.waitForSelector('::-p-text(dora@example.com)');
  await page.waitForSelector('::-p-text(Dora Dev)');
  const me = await stack.request('GET', '/api/v1/users/me', { token: (await heldToken()) ?? '' });
  expect(me.body.data).toMatchObject({ email: 'dora@example.com', name: 'Dora Dev' });
});

it('shows the gateway refusing the form', async () => {
  const other = await context.newPage();
  other.setDefaultTimeout(8000);
  await other.goto(`${stack.gatewayUrl}/sign-in`);
  await other.waitForSelector('::-p-aria([name="Email"][role="textbox"])');
  // An address without a dot in its domain passes the browser's check and is refused by the gateway.
  await other.locator('::-p-aria([name="Email"][role="textbox"])').fill('eve@localhost');
  await other.locator('::-p-aria([name="Sign in"][role="button"])').click();
  const alert = await other.waitForSelector('[role="alert"]');
  expect(await alert?.evaluate((element: any) => element.textContent)).toMatch(/email/i);
  expect(await seriousAxeViolations(other)).toEqual([]);
  expect(new URL(other.url()).pathname).toBe('/sign-in');
  await other.close();
});

it('brings the form back when the API refuses the token, then the page the person was on', async () => {
  const workspaces = await stack.request('GET', '/api/v1/workspaces', { token: (await heldToken()) ?? '' });
  const workspaceId = workspaces.body.data[0].id as string;
  await page.goto(`${stack.gatewayUrl}/w/${workspaceId}`);
  await page.waitForSelector('::-p-aria([name="Top-level documents"][role="heading"])');

  await page.evaluate(`(() => {
    const stored = JSON.parse(localStorage.getItem(${JSON.stringify(TOKEN_KEY)}));
    stored.accessToken = stored.accessToken.slice(0, -8) + 'AAAAAAAA';
    localStorage.setItem(${JSON.stringify(TOKEN_KEY)}, JSON.stringify(stored));
  })()`);
  await page.reload();
  await waitForPath(page, `/sign-in?returnTo=${encodeURIComponent(`/w/${workspaceId}`)}`);
  await page.locator('::-p-aria([name="Email"][role="textbox"])').fill('dora@example.com');
  await page.locator('::-p-aria([name="Name"][role="textbox"])').fill('Dora Dev');
  await page.locator('::-p-aria([name="Sign in"][role="button"])').click();
  await waitForPath(page, `/w/${workspaceId}`);
  await page.waitForSelector('::-p-aria([name="Top-level documents"][role="heading"])');
});

it('signs out from the account menu and says so', async () => {
  await chooseMenuItem(page, 'Account: Dora Dev', 'Sign out');
  await waitForPath(page, '/sign-in?signedOut=1');
  await page.waitForSelector('::-p-text(You have signed out.)');
  expect(await heldToken()).toBeNull();
  expect(await seriousAxeViolations(page)).toEqual([]);

  // Signed out, a page of the wiki asks to sign in again.
  await page.goto(`${stack.gatewayUrl}/`);
  await waitForPath(page, `/sign-in?returnTo=${encodeURIComponent('/')}`);
});
