import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { startIdp, type TestIdp } from './helpers/idp.js';
import { closedUrl } from './helpers/upstreams.js';
import { makeWebBuild, type WebBuild } from './helpers/web-build.js';

/**
 * The web app's CSP as Chromium applies it (issue 27): the inline script of index.html runs (by
 * its hash) and so does the app's module; a WebSocket to the page's own host (`/collab`) is
 * allowed by `connect-src 'self'` alone, while one to another host, an injected inline script
 * and an inline style are what the policy says of them. The app's module records every violation.
 */
const APP_SCRIPT = `
const violations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  violations.push({ directive: e.effectiveDirective, blocked: e.blockedURI });
});
window.violations = violations;
window.sameHost = new WebSocket('ws://' + location.host + '/collab');
window.otherHost = new WebSocket('ws://127.0.0.2:9/elsewhere');
const injected = document.createElement('script');
injected.textContent = 'window.injected = true';
document.head.appendChild(injected);
const style = document.createElement('style');
style.textContent = '#root { color: rgb(1, 2, 3) }';
document.head.appendChild(style);
document.body.dataset.ready = 'yes';
`;

let idp: TestIdp;
let build: WebBuild;
let gw: TestGateway;
let browser: Browser;
let profile: string;
let origin: string;

beforeAll(async () => {
  idp = await startIdp();
  build = makeWebBuild(APP_SCRIPT);
  // The upgrade goes nowhere: only whether the browser lets the page open it matters.
  gw = await startTestGateway({ idp, env: { WEB_DIR: build.dir, COLLAB_URL: await closedUrl() } });
  await gw.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
  profile = mkdtempSync(join(tmpdir(), 'wiki-web-chromium-'));
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    userDataDir: profile,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-extensions',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await idp?.close();
  build?.remove();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

interface Violation {
  directive: string;
  blocked: string;
}

it('lets the app run and reach its own host, and holds everything else to the policy', async () => {
  const page = await browser.newPage();
  try {
    const answer = await page.goto(`${origin}/w/0b7c0f53-3c44-4b39-9a52-2a3f4e0f3c11`);
    expect(answer?.status()).toBe(200);
    // Strings, evaluated in the page: the tests' TypeScript has no DOM types.
    await page.waitForFunction("document.body.dataset.ready === 'yes'");
    // The refusals are reported as tasks: wait for the ones the page is sure to cause.
    await page.waitForFunction(
      "violations.some((v) => v.directive === 'connect-src') && violations.some((v) => v.directive === 'script-src-elem')",
    );
    const state = (await page.evaluate(`({
      theme: document.documentElement.dataset.theme,
      injected: window.injected ?? false,
      color: getComputedStyle(document.getElementById('root')).color,
      violations,
    })`)) as { theme?: string; injected: boolean; color: string; violations: Violation[] };
    expect(state.theme).toBe('light');
    expect(state.injected).toBe(false);
    expect(state.color).toBe('rgb(1, 2, 3)');
    const connect = state.violations.filter((v) => v.directive === 'connect-src').map((v) => v.blocked);
    expect(connect).toEqual(['ws://127.0.0.2:9/elsewhere']);
    expect(state.violations.filter((v) => v.blocked.includes(new URL(origin).host))).toEqual([]);
  } finally {
    await page.close();
  }
});
