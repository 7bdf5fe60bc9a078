import type { Stack } from '@wiki/testing';
import { decodeJwt } from 'jose';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { chooseMenuItem, launchBrowser, seriousAxeViolations } from './helpers/browser.js';
import { pathOf, waitForPath } from './helpers/keyboard.js';
import { type OidcIssuer, startOidcIssuer } from './helpers/oidc-issuer.js';
import { startWebPlatform, WEB_CLIENT_ID } from './helpers/platform.js';

/**
 * Signing in with OpenID Connect as ARCHITECTURE 5.17 says, against a real provider (panva's
 * oidc-provider): Authorization Code + PKCE as the public client, the provider's own login form,
 * back to the page the person started from; silent renewal with a short-lived token; a token the
 * API refuses sends the person through sign-in and back; signing out ends the provider's session.
 */
let idp: OidcIssuer;
let stack: Stack;
let browser: Browser;
let context: BrowserContext;

/** How long the provider's access tokens live: the app renews a minute before expiry, so within seconds. */
const TOKEN_TTL_SECONDS = 64;
const USER_KEY = () => `oidc.user:${idp.issuer}:${WEB_CLIENT_ID}`;

beforeAll(async () => {
  idp = await startOidcIssuer({ clientId: WEB_CLIENT_ID, accessTokenTtl: TOKEN_TTL_SECONDS });
  stack = await startWebPlatform(['workspace', 'document'], idp.gatewayEnv());
  idp.serveApp(stack.gatewayUrl);
  browser = await launchBrowser();
  // One person's browser for the whole file: the provider's session cookie carries from test to test.
  context = await browser.createBrowserContext();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await idp?.close();
});

/** The access token the app holds now (oidc-client-ts keeps the user in sessionStorage), or null. */
async function heldToken(page: Page): Promise<string | null> {
  const user = (await page.evaluate(`sessionStorage.getItem(${JSON.stringify(USER_KEY())})`)) as string | null;
  return user ? (JSON.parse(user) as { access_token: string }).access_token : null;
}

/** Fills the provider's development login form (any password) and submits it. */
async function logInAtProvider(page: Page, email: string): Promise<void> {
  await page.waitForSelector('input[name="login"]');
  expect(new URL(page.url()).origin).toBe(idp.issuer);
  await page.type('input[name="login"]', email);
  await page.type('input[name="password"]', 'any password');
  // Not waitForNavigation: the provider's redirect to the wiki and the wiki's own redirect can
  // follow each other before a load event, and the wait could then miss its navigation. Callers
  // wait for the page they expect.
  await page.keyboard.press('Enter');
}

let page: Page;
let workspaceId: string;

it('sends a signed-out person to the provider and brings them back to the page they opened', async () => {
  page = await context.newPage();
  await page.goto(`${stack.gatewayUrl}/settings`);
  await logInAtProvider(page, 'olga@example.com');

  await waitForPath(page, '/settings');
  await page.waitForSelector('::-p-text(olga@example.com)');
  const token = await heldToken(page);
  expect(decodeJwt(token ?? '')).toMatchObject({ iss: idp.issuer, aud: WEB_CLIENT_ID, email: 'olga@example.com' });
  expect(await seriousAxeViolations(page)).toEqual([]);

  // The app's API calls carry that token: the person's workspace answers to it.
  const workspaces = await stack.request('GET', '/api/v1/workspaces', { token: token ?? '' });
  expect(workspaces.status).toBe(200);
  workspaceId = workspaces.body.data[0].id;
});

it('renews the access token silently, without loading the page again', async () => {
  await page.evaluate('window.samePage = true');
  const before = await heldToken(page);
  const issued = idp.issuedAccessTokens.length;
  await page.waitForFunction(
    (key: string, old: string) => {
      const user = (globalThis as any).sessionStorage.getItem(key);
      return user && JSON.parse(user).access_token !== old;
    },
    { timeout: 20_000 },
    USER_KEY(),
    before ?? '',
  );
  expect(await page.evaluate('window.samePage')).toBe(true);
  expect(idp.issuedAccessTokens.length).toBeGreaterThan(issued);
  const renewed = (await heldToken(page)) ?? '';
  expect(idp.issuedAccessTokens).toContain(renewed);
  expect((await stack.request('GET', '/api/v1/users/me', { token: renewed })).status).toBe(200);
});

it('takes a person whose token the API refuses through sign-in and back to where they were', async () => {
  await page.goto(`${stack.gatewayUrl}/w/${workspaceId}`);
  await page.waitForSelector('::-p-aria([name="Top-level documents"][role="heading"])');

  // The token goes bad (as a revoked or expired one would) and the provider's session has ended.
  await page.evaluate(`(() => {
    const key = ${JSON.stringify(USER_KEY())};
    const user = JSON.parse(sessionStorage.getItem(key));
    user.access_token = user.access_token.slice(0, -8) + 'AAAAAAAA';
    user.refresh_token = undefined;
    sessionStorage.setItem(key, JSON.stringify(user));
  })()`);
  const bad = await heldToken(page);
  for (const cookie of await page.cookies(idp.issuer)) await page.deleteCookie({ name: cookie.name, url: idp.issuer });

  await page.reload();
  await logInAtProvider(page, 'olga@example.com');
  await waitForPath(page, `/w/${workspaceId}`);
  await page.waitForSelector('::-p-aria([name="Top-level documents"][role="heading"])');
  const fresh = await heldToken(page);
  expect(fresh).not.toBe(bad);
  expect((await stack.request('GET', '/api/v1/users/me', { token: fresh ?? '' })).status).toBe(200);
});

it('comes straight back when the provider still knows the person', async () => {
  await page.evaluate(`(() => {
    const key = ${JSON.stringify(USER_KEY())};
    const user = JSON.parse(sessionStorage.getItem(key));
    user.access_token = 'not-a-token';
    sessionStorage.setItem(key, JSON.stringify(user));
  })()`);
  await page.goto(`${stack.gatewayUrl}/settings`);
  // No login form this time: the provider's session answers at once.
  await waitForPath(page, '/settings');
  await page.waitForSelector('::-p-text(olga@example.com)');
  expect(await heldToken(page)).not.toBe('not-a-token');
});

it('signs out at the provider too: the next visit asks for the login again', async () => {
  // Each step waits less than the test may take, so a failure under load names its step and page.
  const step = async <T>(name: string, action: () => Promise<T>): Promise<T> => {
    try {
      return await action();
    } catch (error) {
      throw new Error(`${name}: ${(error as Error).message} (the page is at ${page.url()})`);
    }
  };
  page.setDefaultTimeout(20_000);
  await step('back to the wiki', async () => {
    await page.locator('::-p-aria([name="← Back to your wiki"][role="link"])').click();
    await page.waitForFunction(`location.pathname.startsWith('/w/')`);
  });
  await step('sign out from the account menu', () => chooseMenuItem(page, 'Account: olga', 'Sign out'));

  // The provider asks to confirm (as Keycloak does), then sends the person back to the wiki, which
  // finds nobody signed in and sends them to the provider's login.
  const confirm = await step('the provider asks to confirm', () => page.waitForSelector('button[value="yes"]'));
  expect(new URL(page.url()).origin).toBe(idp.issuer);
  await confirm?.click();
  await step('the provider asks for the login again', () => page.waitForSelector('input[name="login"]'));
  expect(new URL(page.url()).origin).toBe(idp.issuer);

  // Signing in again lands on the start page: the person's workspace.
  await step('signing in again', () => logInAtProvider(page, 'olga@example.com'));
  await step('back at the workspace', () => waitForPath(page, `/w/${workspaceId}`, 20_000));
  expect(await pathOf(page)).toBe(`/w/${workspaceId}`);
  await page.close();
}, 90_000);
