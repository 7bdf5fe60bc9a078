import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Stack } from '@wiki/testing';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { WEB_CLIENT_ID } from './platform.js';

const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--disable-extensions',
  // Tests reach only loopback addresses: no host name resolves, so nothing a page loads can leave the machine.
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1',
];

/** Debian's Chromium (as the export service uses), one browser per test file. */
export function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    defaultViewport: { width: 1280, height: 800 },
  });
}

/**
 * Signs `page` in as `email` the way the app keeps an OIDC sign-in: the user entry oidc-client-ts
 * reads from sessionStorage, holding a token of the test IdP. The full redirect flow against a real
 * OIDC provider has its own test (web/test/sign-in.test.ts); every other test starts signed in.
 */
export async function signInPage(page: Page, stack: Stack, email: string, name?: string): Promise<void> {
  const token = await stack.tokenFor(email, name);
  await seedOidcSession(page, { issuer: stack.jwks.issuer, clientId: WEB_CLIENT_ID, token, email, name });
}

export interface OidcSession {
  /** The issuer and client id the gateway's GET /auth/config names (oidc-client-ts keys its entry by them). */
  issuer: string;
  clientId: string;
  /** An access token the gateway accepts for `email`. */
  token: string;
  email: string;
  name?: string;
}

/** The sessionStorage entry of a signed-in oidc-client-ts user, written before the app's first script. */
export async function seedOidcSession(page: Page, session: OidcSession): Promise<void> {
  const { email, name } = session;
  const key = `oidc.user:${session.issuer}:${session.clientId}`;
  const user = JSON.stringify({
    access_token: session.token,
    token_type: 'Bearer',
    scope: 'openid profile email',
    profile: { sub: `idp|${email}`, email, name: name ?? email.split('@')[0] },
    expires_at: Math.floor(Date.now() / 1000) + 3600,
  });
  // A string, not a function: these tests are type-checked without the DOM's types.
  await page.evaluateOnNewDocument(`sessionStorage.setItem(${JSON.stringify(key)}, ${JSON.stringify(user)});`);
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
  /** axe's account of what is wrong at each node, in the order of `nodes`. */
  summaries: string[];
}

/** Resolves once no finite animation runs (a menu or dialog done opening). */
export function animationsSettled(page: Page): Promise<unknown> {
  return page.waitForFunction(
    "document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity)",
    { timeout: 5_000 },
  );
}

/**
 * Opens the menu of the button named `button` and chooses its item `item`, once the menu has
 * finished opening: a click while it still grows can land where the item is not yet.
 */
export async function chooseMenuItem(page: Page, button: string, item: string): Promise<void> {
  await page.locator(`::-p-aria([name="${button}"][role="button"])`).click();
  await page.locator(`::-p-aria([name="${item}"][role="menuitem"])`).wait();
  await animationsSettled(page);
  await page.locator(`::-p-aria([name="${item}"][role="menuitem"])`).click();
}

/**
 * The serious and critical axe-core violations of the page as it is now (ARCHITECTURE 5.17 asks for
 * none). axe runs through DevTools evaluation, which the app's CSP does not restrict.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  // Colours are judged once transitions (a dialog fading in) have ended; endless ones (spinners) never do.
  await animationsSettled(page);
  await page.evaluate(axeSource);
  const violations = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
  )) as {
    id: string;
    impact: string | null;
    help: string;
    nodes: { target: string[]; failureSummary?: string }[];
  }[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
      summaries: v.nodes.map((n) => n.failureSummary ?? ''),
    }));
}
