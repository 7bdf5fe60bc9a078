import { paragraph, type SignedInUser, type Stack } from '@wiki/testing';
import type { Browser, Page } from 'puppeteer-core';
import { launchBrowser, seriousAxeViolations, signInPage } from './helpers/browser.js';
import { focused, tabTo, waitForPath } from './helpers/keyboard.js';
import { startWebPlatform } from './helpers/platform.js';

/**
 * The header's search (issue 27 point 6, ARIA 5.17): a `searchbox` "Search" that Ctrl/⌘-K
 * reaches from anywhere, results while typing in a listbox the arrow keys move through, Enter
 * or a click opening the document, Escape closing the list, snippets whose only markup is <mark>,
 * and what it says when nothing matches or the search fails.
 */
let stack: Stack;
let browser: Browser;
let owner: SignedInUser;
let workspaceId: string;
const docs: Record<string, string> = {};

const SEARCHBOX = '::-p-aria([name="Search"][role="searchbox"])';
const COMBOBOX = '[role="combobox"]';
const HOSTILE = '<img src=x onerror="window.pwned=1">';

async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await stack.request(method, `/api/v1${path}`, { token: owner.token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { data: T }).data;
}

/** Waits until the index (fed by events) finds `query` in `count` documents. */
async function indexed(query: string, count: number): Promise<void> {
  for (let i = 0; i < 150; i++) {
    const found = await api<unknown[]>(
      'GET',
      `/documents/search?workspaceId=${workspaceId}&query=${encodeURIComponent(query)}`,
    );
    if (found.length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the index never found ${count} documents for "${query}"`);
}

async function openWorkspace(): Promise<Page> {
  const page = await browser.newPage();
  await signInPage(page, stack, owner.email, owner.name);
  await page.goto(`${stack.gatewayUrl}/w/${workspaceId}`);
  await page.waitForSelector(SEARCHBOX);
  return page;
}

const attribute = (page: Page, selector: string, name: string) =>
  page.$eval(selector, (element, attr) => element.getAttribute(attr as string), name) as Promise<string | null>;

beforeAll(async () => {
  stack = await startWebPlatform(['workspace', 'document', 'comment', 'search']);
  browser = await launchBrowser();
  owner = await stack.signIn('searcher@example.com', 'Searcher');
  workspaceId = (await api('POST', '/workspaces', { name: 'Library' })).id;
  const make = async (title: string, text: string) => {
    const doc = await api('POST', '/documents', { workspaceId, title, content: [paragraph(text)] });
    docs[title] = doc.id;
  };
  await make('Gardening basics', 'Water the tomatoes every morning.');
  await make('Tomato varieties', 'Cherry tomatoes ripen first.');
  await make('Kitchen rules', 'Cook the tomatoes slowly.');
  await make(`Beware ${HOSTILE} here`, `A snippet holding ${HOSTILE} and the word marigold.`);
  await indexed('tomatoes', 3);
  await indexed('marigold', 1);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

it('is reached with Ctrl-K from anywhere, lists results as one types, and opens one with the arrow keys and Enter', async () => {
  const page = await openWorkspace();
  // Focus somewhere else first: a link of the page.
  await tabTo(page, 'Kitchen rules');
  await page.keyboard.down('Control');
  await page.keyboard.press('k');
  await page.keyboard.up('Control');
  expect(await focused(page)).toMatchObject({ tag: 'input', name: 'Search' });

  await page.keyboard.type('tomatoes');
  await page.waitForSelector('::-p-aria([name="Matching documents"][role="listbox"])');
  expect(await attribute(page, COMBOBOX, 'aria-expanded')).toBe('true');
  const listId = await attribute(page, COMBOBOX, 'aria-controls');
  expect(await attribute(page, '[role="listbox"]', 'id')).toBe(listId);
  expect(await attribute(page, 'input[type="search"]', 'aria-controls')).toBe(listId);
  const options = await page.$$('[role="option"]');
  expect(options).toHaveLength(3);
  expect(await seriousAxeViolations(page)).toEqual([]);

  // ArrowDown twice, ArrowUp once: the first result is the active one, the searchbox keeps the focus.
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  const firstId = await page.$eval('[role="option"]', (option: any) => option.id);
  expect(await attribute(page, 'input[type="search"]', 'aria-activedescendant')).toBe(firstId);
  expect(await attribute(page, `[id="${firstId}"]`, 'aria-selected')).toBe('true');
  expect((await focused(page)).name).toBe('Search');
  const firstTitle = (await page.$eval('[role="option"]', (option: any) => option.textContent)) as string;
  const expected = Object.entries(docs).find(([title]) => firstTitle.startsWith(title));
  expect(expected).toBeDefined();

  await page.keyboard.press('Enter');
  await waitForPath(page, `/w/${workspaceId}/d/${expected?.[1]}`);
  expect(await attribute(page, COMBOBOX, 'aria-expanded')).toBe('false');
  await page.close();
});

it('marks the matched words, and shows markup in titles and text as the text it is', async () => {
  const page = await openWorkspace();
  await page.locator(SEARCHBOX).click();
  await page.keyboard.type('marigold');
  await page.waitForSelector('[role="option"]');
  const option = await page.$eval('[role="option"]', (element: any) => ({
    text: element.textContent,
    marks: [...element.querySelectorAll('mark')].map((mark: any) => mark.textContent),
    images: element.querySelectorAll('img').length,
  }));
  expect(option.text).toContain(`Beware ${HOSTILE} here`);
  expect(option.text).toContain(HOSTILE);
  expect(option.marks.map((mark: string | null) => mark?.toLowerCase())).toContain('marigold');
  expect(option.images).toBe(0);
  expect(await page.evaluate('window.pwned')).toBeUndefined();

  // The hostile title is found by its own words too, still as text.
  await page.locator(SEARCHBOX).fill('');
  await page.keyboard.type('beware');
  await page.waitForFunction(
    `[...document.querySelectorAll('[role="option"]')].some((o) => o.textContent.includes('onerror'))`,
  );
  expect(await page.$$eval('[role="listbox"] img', (images) => images.length)).toBe(0);
  expect(await page.evaluate('window.pwned')).toBeUndefined();
  await page.close();
});

it('closes with Escape, keeping the words, and opens a result with a click', async () => {
  const page = await openWorkspace();
  await page.locator(SEARCHBOX).click();
  await page.keyboard.type('cherry');
  await page.waitForSelector('[role="option"]');
  await page.keyboard.press('Escape');
  expect(await attribute(page, COMBOBOX, 'aria-expanded')).toBe('false');
  expect(await page.$eval('input[type="search"]', (input) => (input as unknown as { value: string }).value)).toBe(
    'cherry',
  );
  expect(await page.$('[role="listbox"]:not([hidden])')).toBeNull();

  // ArrowDown opens the list again; a click on a result opens it.
  await page.keyboard.press('ArrowDown');
  await page.waitForSelector('[role="listbox"]:not([hidden])');
  await page.locator('[role="option"]').click();
  await waitForPath(page, `/w/${workspaceId}/d/${docs['Tomato varieties']}`);
  await page.close();
});

it('finds a word of a comment, says so, and opens the document at its thread', async () => {
  const documentId = docs['Kitchen rules'];
  const thread = await api('POST', `/comments/documents/${documentId}/threads`, {
    anchor: { blockId: 'missing-block', startOffset: 0, endOffset: 4, selectedText: 'Cook' },
    comment: { content: 'Try the saffron from the market.' },
  });
  await indexed('saffron', 1);
  const page = await openWorkspace();
  await page.locator(SEARCHBOX).click();
  await page.keyboard.type('saffron');
  await page.waitForSelector('[role="option"]');
  const option = await page.$eval('[role="option"]', (element: any) => element.textContent as string);
  expect(option).toContain('Kitchen rules');
  expect(option).toContain('In a comment:');
  expect(await seriousAxeViolations(page)).toEqual([]);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await waitForPath(page, `/w/${workspaceId}/d/${documentId}`);
  expect(await page.evaluate('location.hash')).toBe(`#thread-${thread.id}`);
  await page.close();
});

it('says when nothing matches, and shows why a search failed', async () => {
  const page = await openWorkspace();
  await page.locator(SEARCHBOX).click();
  await page.keyboard.type('zeppelin');
  await page.waitForSelector('::-p-text(No documents match “zeppelin”)');
  expect(await attribute(page, COMBOBOX, 'aria-expanded')).toBe('false');
  expect(await seriousAxeViolations(page)).toEqual([]);

  // Longer than the API takes: its validation message is shown as an alert.
  await page.keyboard.sendCharacter(' x'.repeat(600));
  const alert = await page.waitForSelector('.search [role="alert"]');
  expect(await alert?.evaluate((element: any) => element.textContent)).toMatch(/query|1000|long/i);
  await page.close();
});
