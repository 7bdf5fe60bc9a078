import { signUnsubscribeToken } from '@wiki/auth';
import { type SignedInUser, type Stack, signInNew } from '@wiki/testing';
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { launchBrowser, seriousAxeViolations, signInPage } from './helpers/browser.js';
import { focused, tabTo } from './helpers/keyboard.js';
import { startWebPlatform } from './helpers/platform.js';

/**
 * Personal settings at `/settings` (ARCHITECTURE 5.17). MCP keys (issue 28 point 7, 5.3): `button`
 * "New MCP key" makes a key that is shown once with a Copy button and works against /api/v1/mcp; a
 * deleted key stops working; the page says how to connect an assistant. E-mail (issue 31, 5.18):
 * one select per notification type, saved at once, kept.
 */
let stack: Stack;
let browser: Browser;
let person: SignedInUser;
let page: Page;

beforeAll(async () => {
  stack = await startWebPlatform(['workspace', 'document', 'mcp']);
  browser = await launchBrowser();
  person = await signInNew(stack, 'Kay Keys');
  const context = await browser.createBrowserContext();
  await context.overridePermissions(stack.gatewayUrl, [
    'clipboard-read',
    'clipboard-write',
    'clipboard-sanitized-write',
  ]);
  page = await context.newPage();
  page.setDefaultTimeout(8_000);
  await signInPage(page, stack, person.email, person.name);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const aria = (name: string, role: string) => `::-p-aria([name=${JSON.stringify(name)}][role="${role}"])`;
const clipboard = () => page.evaluate('navigator.clipboard.readText()') as Promise<string>;

/** A plain MCP `tools/list` over Streamable HTTP with the key, as an assistant would send it. */
async function listTools(key: string): Promise<{ status: number; tools: string[] }> {
  const res = await fetch(`${stack.gatewayUrl}/api/v1/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-mcp-api-key': key,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  const body = res.ok ? ((await res.json()) as { result: { tools: { name: string }[] } }) : null;
  return { status: res.status, tools: body?.result.tools.map((tool) => tool.name) ?? [] };
}

const keysOfPerson = async () =>
  ((await stack.request('GET', '/api/v1/users/me/mcp-keys', { token: person.token })).body.data as any[]).map(
    (key) => key.name,
  );

/** Makes a key through the page (keyboard only) and returns it as the page showed it, once. */
async function createKey(name: string): Promise<string> {
  await tabTo(page, 'New MCP key');
  await page.keyboard.press('Enter');
  await page.waitForSelector(aria('Key name', 'textbox'));
  expect((await focused(page)).name).toBe('Key name');
  await page.keyboard.type(name);
  await page.keyboard.press('Enter');
  await page.waitForSelector(aria(`Your new key “${name}”`, 'heading'));
  return page.$eval('.key-notice input', (input: any) => input.value as string);
}

it('starts empty and says how to make a key and connect an assistant', async () => {
  await page.goto(`${stack.gatewayUrl}/settings`);
  await page.waitForSelector(aria('MCP keys', 'heading'));
  await page.waitForSelector('::-p-text(You have no MCP keys yet)');
  await page.waitForSelector(aria('How to connect an assistant', 'heading'));
  const text = (await page.evaluate('document.body.innerText')) as string;
  expect(text).toContain(`${stack.gatewayUrl}/api/v1/mcp`);
  expect(text).toContain('X-Mcp-Api-Key');
  expect(await seriousAxeViolations(page)).toEqual([]);

  await page.locator(aria('Copy configuration', 'button')).click();
  const config = JSON.parse(await clipboard());
  expect(config.mcpServers.wiki).toEqual({
    type: 'http',
    url: `${stack.gatewayUrl}/api/v1/mcp`,
    headers: { 'X-Mcp-Api-Key': '<your key>' },
  });
});

it('creates a key shown once with a Copy button, and the key works against /api/v1/mcp', async () => {
  const key = await createKey('Laptop assistant');
  await page.waitForSelector('::-p-text(Copy it now: it is shown only this once.)');
  // The heading takes the focus from the form that went away; Tab reaches the key and Copy.
  expect((await focused(page)).name).toBe('Your new key “Laptop assistant”');
  await tabTo(page, 'Copy');
  await page.keyboard.press('Enter');
  await page.waitForSelector('::-p-text(Copied.)');
  expect(await clipboard()).toBe(key);
  expect(await seriousAxeViolations(page)).toEqual([]);

  const answer = await listTools(key);
  expect(answer.status).toBe(200);
  expect(answer.tools).toEqual(expect.arrayContaining(['wikiListWorkspaces', 'wikiSearch']));
  expect(await keysOfPerson()).toEqual(['Laptop assistant']);

  // Listed by name and first characters; once the page is left, the key itself is never shown again.
  await page.reload();
  await page.waitForSelector('::-p-text(Laptop assistant)');
  const prefix = (await stack.request('GET', '/api/v1/users/me/mcp-keys', { token: person.token })).body.data[0]
    .prefix as string;
  expect(key.startsWith(prefix)).toBe(true);
  await page.waitForSelector(`::-p-text(${prefix}…)`);
  expect(await page.content()).not.toContain(key);
});

it('deletes a key after asking, and a deleted key no longer works', async () => {
  const spare = await createKey('Spare');
  await page.locator(aria('Done, I have copied it', 'button')).click();
  await page.waitForSelector(aria('Delete key Spare', 'button'));
  // The notice goes; the focus lands on "New MCP key", not on the page's start.
  expect((await focused(page)).name).toBe('New MCP key');
  expect(await page.$('.key-notice')).toBeNull();

  await page.locator(aria('Delete key Spare', 'button')).click();
  await page.waitForSelector(aria('Delete the key “Spare”?', 'alertdialog'));
  expect(await seriousAxeViolations(page)).toEqual([]);
  await page.locator(aria('Delete key', 'button')).click();
  await page.waitForSelector('::-p-text(The key “Spare” is deleted.)');
  await page.waitForSelector(aria('Delete key Spare', 'button'), { hidden: true });
  expect(await keysOfPerson()).toEqual(['Laptop assistant']);
  expect((await listTools(spare)).status).toBe(401);

  await page.locator(aria('Delete key Laptop assistant', 'button')).click();
  await page.locator(aria('Delete key', 'button')).click();
  await page.waitForSelector('::-p-text(You have no MCP keys yet)');
  expect(await keysOfPerson()).toEqual([]);
});

const selectValue = (name: string) => page.$eval(aria(name, 'combobox'), (select: any) => select.value as string);
const emailPreferences = async () =>
  (await stack.request('GET', '/api/v1/users/me', { token: person.token })).body.data.preference.emailNotifications;

it('has one e-mail select per notification type, saved from the keyboard and kept after a reload', async () => {
  await page.goto(`${stack.gatewayUrl}/settings`);
  await page.waitForSelector(aria('E-mail', 'heading'));
  const labels = ['Mentions', 'Replies', 'Resolved threads', 'Invitations', 'Watched documents', 'Disabled webhooks'];
  for (const label of labels) await page.waitForSelector(aria(label, 'combobox'));
  expect(await selectValue('Mentions')).toBe('instant');
  expect(await selectValue('Replies')).toBe('digest');
  const options = await page.$eval(aria('Replies', 'combobox'), (select: any) =>
    [...select.options].map((o: any) => o.textContent as string),
  );
  expect(options).toEqual(['Off', 'Instant', 'In the digest']);
  expect(await seriousAxeViolations(page)).toEqual([]);

  // On a closed select an arrow key picks the option before: digest -> instant, instant -> off.
  await tabTo(page, 'Replies');
  await page.keyboard.press('ArrowUp');
  await page.waitForSelector('::-p-text(Saved: Replies.)');
  await tabTo(page, 'Mentions');
  await page.keyboard.press('ArrowUp');
  await page.waitForSelector('::-p-text(Saved: Mentions.)');
  expect(await emailPreferences()).toMatchObject({
    COMMENT_REPLY: 'instant',
    COMMENT_MENTION: 'off',
    DOCUMENT_UPDATED: 'digest',
  });

  await page.reload();
  await page.waitForSelector(aria('Replies', 'combobox'));
  expect(await selectValue('Replies')).toBe('instant');
  expect(await selectValue('Mentions')).toBe('off');
  expect(await selectValue('Watched documents')).toBe('digest');
});

it('says when a change was not saved, and shows what is stored', async () => {
  await page.goto(`${stack.gatewayUrl}/settings`);
  await page.waitForSelector(aria('Watched documents', 'combobox'));
  // The connection breaks for the save alone (the browser drops it; the server never sees it).
  const dropSaves = (request: HTTPRequest) =>
    request.method() === 'PUT' && request.url().endsWith('/api/v1/users/me/preferences')
      ? request.abort('connectionreset')
      : request.continue();
  await page.setRequestInterception(true);
  page.on('request', dropSaves);
  try {
    await tabTo(page, 'Watched documents');
    await page.keyboard.press('ArrowUp');
    await page.waitForSelector('::-p-text(Watched documents was not saved)');
    expect(await seriousAxeViolations(page)).toEqual([]);
  } finally {
    page.off('request', dropSaves);
    await page.setRequestInterception(false);
  }
  expect(await selectValue('Watched documents')).toBe('digest');
  expect((await emailPreferences()).DOCUMENT_UPDATED).toBe('digest');
});

it('unsubscribes from an e-mail’s link in the browser: the page, its button, the settings after', async () => {
  const before = (await emailPreferences()).COMMENT_REPLY;
  expect(before).not.toBe('off');
  const token = signUnsubscribeToken(stack.config.internalTokenSecret, { userId: person.id, type: 'COMMENT_REPLY' });
  const refused: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) refused.push(message.text());
  });
  await page.goto(`${stack.gatewayUrl}/api/v1/email/unsubscribe?token=${encodeURIComponent(token)}`);
  await page.waitForSelector('::-p-text(e-mails about replies to your comments)');
  expect((await emailPreferences()).COMMENT_REPLY).toBe(before);
  expect(await seriousAxeViolations(page)).toEqual([]);
  // Its one style is allowed by hash: the button is styled (not the browser's grey).
  const background = await page.evaluate("getComputedStyle(document.querySelector('button')).backgroundColor");
  expect(background).toBe('rgb(24, 100, 171)');

  await tabTo(page, 'Unsubscribe');
  await page.keyboard.press('Enter');
  await page.waitForSelector('::-p-text(will no longer get e-mails about replies to your comments)');
  expect(refused).toEqual([]);
  expect((await emailPreferences()).COMMENT_REPLY).toBe('off');

  await page.locator(aria('your settings', 'link')).click();
  await page.waitForSelector(aria('Replies', 'combobox'));
  expect(await selectValue('Replies')).toBe('off');
});
