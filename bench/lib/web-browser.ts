import type { Stack } from '@wiki/testing';
import type { Browser, Page } from 'puppeteer-core';
import { signInPage } from '../../web/test/helpers/browser.js';

/** The editor as the app labels it, once it takes input and the live connection is up. */
const EDITABLE_AND_CONNECTED = `(() => {
  const editor = document.querySelector('[contenteditable][aria-label="Document content"]');
  const status = document.querySelector('.connection-status')?.getAttribute('data-state');
  return editor?.getAttribute('contenteditable') === 'true' && status === 'connected' ? performance.now() : false;
})()`;

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/**
 * Cold opens of the document page: each in a fresh browser context (no cache, no storage but the
 * seeded sign-in), timed in the page from navigation start until the editor is editable and the
 * collaboration status says connected.
 */
export async function coldOpens(
  browser: Browser,
  stack: Stack,
  email: string,
  url: string,
  runs: number,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      await signInPage(page, stack, email);
      await page.goto(url, { waitUntil: 'domcontentloaded' });
      const handle = await page.waitForFunction(EDITABLE_AND_CONNECTED, { polling: 'raf', timeout: 30_000 });
      times.push(Math.round((await handle.jsonValue()) as number));
    } finally {
      await context.close();
    }
  }
  return times;
}

/** Opens the document page in a context of its own and waits for an editable, connected editor. */
async function openEditor(browser: Browser, stack: Stack, email: string, url: string): Promise<Page> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await signInPage(page, stack, email);
  await page.goto(url);
  await page.waitForFunction(EDITABLE_AND_CONNECTED, { timeout: 30_000 });
  return page;
}

/**
 * Keystroke latency between two people on one document: A types `count` x's one at a time into the
 * editor; B's MutationObserver notes when each arrives. Both clocks are the machine's
 * (performance.timeOrigin + now()), so B's time minus A's keydown time is the delay.
 */
export async function keystrokeLatencies(
  browser: Browser,
  stack: Stack,
  [emailA, emailB]: [string, string],
  url: string,
  count: number,
): Promise<number[]> {
  const a = await openEditor(browser, stack, emailA, url);
  const b = await openEditor(browser, stack, emailB, url);
  try {
    // Only typed x's count: names in others' cursor labels must hold none.
    const xs = `((document.querySelector('[aria-label="Document content"]')?.textContent ?? '').match(/x/g) ?? []).length`;
    await b.evaluate(`window.seen = [];
      new MutationObserver(() => {
        const n = ${xs};
        while (window.seen.length < n) window.seen.push(performance.timeOrigin + performance.now());
      }).observe(document.querySelector('[aria-label="Document content"]'), { subtree: true, childList: true, characterData: true });`);
    await a.evaluate(`window.sent = [];
      document.addEventListener('keydown', (e) => {
        if (e.key === 'x') window.sent.push(performance.timeOrigin + performance.now());
      }, true);`);
    await a.click('[aria-label="Document content"]');
    await a.keyboard.down('Control');
    await a.keyboard.press('End');
    await a.keyboard.up('Control');
    for (let i = 1; i <= count; i++) {
      await a.keyboard.press('x');
      await b.waitForFunction(`window.seen.length >= ${i}`, { polling: 'mutation', timeout: 10_000 });
    }
    const sent = (await a.evaluate('window.sent')) as number[];
    const seen = (await b.evaluate('window.seen')) as number[];
    return sent.map((t, i) => Math.round((seen[i] - t) * 10) / 10);
  } finally {
    await a.browserContext().close();
    await b.browserContext().close();
  }
}
