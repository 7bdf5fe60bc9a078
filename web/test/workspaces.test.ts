import type { SignedInUser, Stack } from '@wiki/testing';
import type { Browser, Page } from 'puppeteer-core';
import { launchBrowser, seriousAxeViolations, signInPage } from './helpers/browser.js';
import { accessibleNames, focused, pathOf, tabTo, waitForPath } from './helpers/keyboard.js';
import { startWebPlatform } from './helpers/platform.js';

/**
 * Home, workspaces and personal settings in the browser (issue 27 point 3, ARCHITECTURE 5.17):
 * `/` returns to the last workspace and document while they exist, a person without a workspace
 * is asked to make one, the switcher lists and creates workspaces, the workspace page shows its
 * documents or says how to start, and the theme preference is applied.
 */
let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  stack = await startWebPlatform(['workspace', 'document']);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function api<T = any>(user: SignedInUser, method: string, path: string, body?: unknown): Promise<T> {
  const res = await stack.request(method, `/api/v1${path}`, { token: user.token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { data: T } | null)?.data as T;
}

async function openAs(user: SignedInUser, path: string): Promise<Page> {
  const page = await browser.newPage();
  await signInPage(page, stack, user.email, user.name);
  await page.goto(`${stack.gatewayUrl}${path}`);
  return page;
}

/** The preferences once the app's debounced write has landed (it never holds up the page). */
async function preferencesWhen(user: SignedInUser, holds: (preference: any) => boolean) {
  // Up to 30 s: on a busy machine the write lands late, and the loop ends as soon as it has.
  for (let i = 0; i < 300; i++) {
    const me = await api(user, 'GET', '/users/me');
    if (holds(me.preference)) return me.preference;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the preferences never said so');
}

it('asks someone without a workspace to create one, and opens it once made (keyboard only)', async () => {
  const ada = await stack.signIn('ada@example.com', 'Ada');
  const [personal] = await api(ada, 'GET', '/workspaces');
  await api(ada, 'DELETE', `/workspaces/${personal.id}`);

  const page = await openAs(ada, '/');
  await page.waitForSelector('::-p-aria([name="Create your first workspace"][role="heading"])');
  expect(await seriousAxeViolations(page)).toEqual([]);

  await tabTo(page, 'Name');
  await page.keyboard.type('Research notes');
  await tabTo(page, 'Description');
  await page.keyboard.type('What we learn');
  await tabTo(page, 'Create your first workspace');
  await page.keyboard.press('Enter');

  await page.waitForSelector('::-p-aria([name="Research notes"][role="heading"])');
  const [created] = await api(ada, 'GET', '/workspaces');
  expect(created).toMatchObject({ name: 'Research notes', description: 'What we learn' });
  expect(await pathOf(page)).toBe(`/w/${created.id}`);
  await page.close();
});

it('shows a workspace with its documents, newest first, and an empty one says how to start', async () => {
  const bo = await stack.signIn('bo@example.com', 'Bo');
  const [personal] = await api(bo, 'GET', '/workspaces');
  const page = await openAs(bo, `/w/${personal.id}`);
  await page.waitForSelector(`::-p-aria([name="${personal.name}"][role="heading"])`);
  await page.waitForSelector('::-p-text(This workspace has no documents yet)');
  expect(await seriousAxeViolations(page)).toEqual([]);

  // The empty state's button writes the first document and opens it.
  await page.locator('::-p-aria([name="Write the first document"][role="button"])').click();
  await page.waitForFunction(`location.pathname.startsWith('/w/${personal.id}/d/')`);
  const first = (await pathOf(page)).split('/d/')[1];
  expect((await api(bo, 'GET', `/documents/${first}`)).workspaceId).toBe(personal.id);

  const older = await api(bo, 'POST', '/documents', { workspaceId: personal.id, title: 'Older page' });
  const newer = await api(bo, 'POST', '/documents', { workspaceId: personal.id, title: 'Newer page' });
  await api(bo, 'POST', '/documents', { workspaceId: personal.id, parentId: newer.id, title: 'A child' });
  await page.goto(`${stack.gatewayUrl}/w/${personal.id}`);
  await page.waitForSelector('::-p-aria([name="Newer page"][role="link"])');
  const titles = (await page.$$eval('.document-list a', (links: any[]) => links.map((a) => a.textContent))) as string[];
  expect(titles.indexOf('Newer page')).toBeLessThan(titles.indexOf('Older page'));
  expect(titles).not.toContain('A child');
  expect(await seriousAxeViolations(page)).toEqual([]);

  // A link opens the document.
  await page.locator('::-p-aria([name="Older page"][role="link"])').click();
  await waitForPath(page, `/w/${personal.id}/d/${older.id}`);
  await page.close();
});

it('switches and creates workspaces from the header menu with the keyboard', async () => {
  const cy = await stack.signIn('cy@example.com', 'Cy');
  const [personal] = await api(cy, 'GET', '/workspaces');
  const team = await api(cy, 'POST', '/workspaces', { name: 'Team space', description: 'Shared' });
  const page = await openAs(cy, `/w/${personal.id}`);
  await page.waitForSelector(`::-p-aria([name="${personal.name}"][role="heading"])`);

  await tabTo(page, `Workspace: ${personal.name}`);
  await page.keyboard.press('Enter');
  await page.waitForSelector('::-p-aria([name="Team space"][role="menuitem"])');
  expect(await seriousAxeViolations(page)).toEqual([]);
  // Arrow keys move through the menu; the person's workspaces come first, "New workspace" last.
  const items = await accessibleNames(page, 'menuitem');
  expect(items).toEqual(expect.arrayContaining([personal.name, 'Team space', 'New workspace']));
  expect(items.at(-1)).toBe('New workspace');
  for (let i = 0; i < items.length && (await focused(page)).name !== 'Team space'; i++) {
    await page.keyboard.press('ArrowDown');
  }
  expect((await focused(page)).name).toBe('Team space');
  await page.keyboard.press('Enter');
  await page.waitForSelector('::-p-aria([name="Team space"][role="heading"])');
  expect(await pathOf(page)).toBe(`/w/${team.id}`);

  // "New workspace" asks for a name and description in a dialog, then opens the new one.
  await page.locator('::-p-aria([name="Workspace: Team space"][role="button"])').click();
  await page.locator('::-p-aria([name="New workspace"][role="menuitem"])').click();
  await page.waitForSelector('::-p-aria([name="New workspace"][role="dialog"])');
  expect(await seriousAxeViolations(page)).toEqual([]);
  await page.locator('::-p-aria([name="Name"][role="textbox"])').fill('Design reviews');
  await page.locator('::-p-aria([name="Description"][role="textbox"])').fill('Weekly');
  await tabTo(page, 'Create workspace');
  await page.keyboard.press('Enter');
  await page.waitForSelector('::-p-aria([name="Design reviews"][role="heading"])');
  const made = (await api<any[]>(cy, 'GET', '/workspaces')).find((w) => w.name === 'Design reviews');
  expect(made).toMatchObject({ description: 'Weekly' });
  expect(await pathOf(page)).toBe(`/w/${made.id}`);
  await page.waitForSelector('[role="dialog"]', { hidden: true });
  await page.close();
});

it('returns to the last document, or its workspace once the document is gone, or the first workspace', async () => {
  const di = await stack.signIn('di@example.com', 'Di');
  const [personal] = await api(di, 'GET', '/workspaces');
  const other = await api(di, 'POST', '/workspaces', { name: 'Other' });
  const doc = await api(di, 'POST', '/documents', { workspaceId: other.id, title: 'Where I was' });

  const page = await openAs(di, `/w/${other.id}/d/${doc.id}`);
  await preferencesWhen(di, (p) => p.lastWorkspaceId === other.id && p.lastDocumentId === doc.id);
  await page.goto(`${stack.gatewayUrl}/`);
  await waitForPath(page, `/w/${other.id}/d/${doc.id}`);

  // Opening a workspace's own page remembers the workspace without a document.
  await page.goto(`${stack.gatewayUrl}/w/${personal.id}`);
  await preferencesWhen(di, (p) => p.lastWorkspaceId === personal.id && p.lastDocumentId === null);
  await page.goto(`${stack.gatewayUrl}/w/${other.id}/d/${doc.id}`);
  await preferencesWhen(di, (p) => p.lastDocumentId === doc.id);

  await api(di, 'DELETE', `/documents/${doc.id}`);
  await page.goto(`${stack.gatewayUrl}/`);
  await waitForPath(page, `/w/${other.id}`);

  await api(di, 'PUT', '/users/me/preferences', { lastWorkspaceId: other.id, lastDocumentId: null });
  await api(di, 'DELETE', `/workspaces/${other.id}`);
  await page.goto(`${stack.gatewayUrl}/`);
  await waitForPath(page, `/w/${personal.id}`);
  await page.close();
});

it('shows who is signed in on /settings and applies the theme chosen there, also on the next visit', async () => {
  const ed = await stack.signIn('ed@example.com', 'Ed Example');
  const page = await openAs(ed, '/settings');
  await page.waitForSelector('::-p-aria([name="Settings"][role="heading"])');

  await page.waitForSelector('::-p-text(ed@example.com)');
  await page.waitForSelector('::-p-text(Ed Example)');
  expect(await seriousAxeViolations(page)).toEqual([]);

  // Tab enters the radio group at the chosen theme; the arrow keys choose another.
  await tabTo(page, 'Same as the device');
  await page.keyboard.press('ArrowUp');
  expect((await focused(page)).name).toBe('Dark');
  await preferencesWhen(ed, (p) => p.theme === 'dark');
  const scheme = `document.documentElement.getAttribute('data-mantine-color-scheme')`;
  await page.waitForFunction(`${scheme} === 'dark'`);
  expect(await seriousAxeViolations(page)).toEqual([]);

  await page.reload();
  expect(await page.evaluate(scheme)).toBe('dark');
  await page.locator('::-p-aria([name="Light"][role="radio"])').click();
  await preferencesWhen(ed, (p) => p.theme === 'light');
  await page.waitForFunction(`${scheme} === 'light'`);

  // The way back to the wiki.
  await page.locator('::-p-aria([name="← Back to your wiki"][role="link"])').click();
  await page.waitForFunction(`location.pathname.startsWith('/w/')`);
  await page.close();
});

it('writes dates in the language and region chosen on /settings, on the settings page and the workspace page', async () => {
  const flo = await stack.signIn('flo@example.com', 'Flo Example');
  const workspace = await api(flo, 'POST', '/workspaces', { name: 'Dates' });
  await api(flo, 'POST', '/documents', { workspaceId: workspace.id, title: 'Dated' });
  const page = await openAs(flo, '/settings');
  await page.waitForSelector('::-p-aria([name="Settings"][role="heading"])');
  const example = `document.querySelector('[data-testid="locale-example"]')?.textContent ?? ''`;
  // English (the stored default) writes the month's name: "Mar 14, 2026".
  await page.waitForFunction(`/Mar 14, 2026/.test(${example})`);

  await tabTo(page, 'Language and region');
  expect((await focused(page)).tag).toBe('select');
  await page.select('select', 'de');
  await preferencesWhen(flo, (p) => p.locale === 'de');
  await page.waitForFunction(`/14\\.03\\.2026/.test(${example})`);
  expect(await seriousAxeViolations(page)).toEqual([]);

  // The workspace page's "Updated" dates follow the preference, also after a reload.
  await page.goto(`${stack.gatewayUrl}/w/${workspace.id}`);
  await page.waitForSelector('::-p-aria([name="Dated"][role="link"])');
  await page.waitForFunction(
    `[...document.querySelectorAll('.document-meta')].some((e) => /Updated \\d{2}\\.\\d{2}\\.\\d{4}/.test(e.textContent))`,
  );

  await page.goto(`${stack.gatewayUrl}/settings`);
  await page.locator('::-p-aria([name="Language and region"][role="combobox"])').wait();
  expect(await page.evaluate(`document.querySelector('select').value`)).toBe('de');
  await page.select('select', 'ja');
  await preferencesWhen(flo, (p) => p.locale === 'ja');
  await page.waitForFunction(`/2026\\/03\\/14/.test(${example})`);
  await page.close();
});
