import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { promisify } from 'node:util';
import { createDocument, createWorkspace, eventually, type SignedInUser, type Stack, signInNew } from '@wiki/testing';
import type { Browser, Page } from 'puppeteer-core';
import yazl from 'yazl';
import { launchBrowser, seriousAxeViolations, signInPage } from './helpers/browser.js';
import { focused, tabTo } from './helpers/keyboard.js';
import { startWebPlatform } from './helpers/platform.js';

const run = promisify(execFile);
const aria = (name: string, role: string) => `::-p-aria([name="${name}"][role="${role}"])`;
const DIALOG = 'dialog[open]';
/** What the import takes at most here, so that a slightly larger file is refused (413). */
const IMPORT_MAX_BYTES = 4096;

// Import and whole-tree export in the browser (ARCHITECTURE 5.19) against the real gateway and the
// workspace, document, collab, attachment, export and notification services: the dialogs by
// keyboard, a job's progress until its result, the zip's folders, imported documents in the tree
// and their links, refusals in words, and a closed dialog's job reached through its notification.
describe('import and zip export: dialogs, job progress and results', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let user: SignedInUser;
  let workspaceId: string;
  let downloads: string;
  let files: string;
  const ids: Record<string, string> = {};
  /** How each import request ended (status or failure), for failure messages. */
  const imports: string[] = [];

  beforeAll(async () => {
    stack = await startWebPlatform(['workspace', 'document', 'collab', 'attachment', 'export', 'notification'], {
      IMPORT_MAX_BYTES: String(IMPORT_MAX_BYTES),
    });
    browser = await launchBrowser();
    user = await signInNew(stack, 'Jola Jobs');
    workspaceId = (await createWorkspace(stack, user, { name: 'Handbücher' })).id;
    const make = async (name: string, title: string, parentId: string | null) => {
      ids[name] = (await createDocument(stack, user, { workspaceId, parentId, title })).id;
    };
    await make('book', 'Handbuch', null);
    await make('one', 'Kapitel 1', ids.book);
    await make('section', 'Abschnitt', ids.one);
    await make('two', 'Kapitel 2', ids.book);

    downloads = await mkdtemp(join(tmpdir(), 'web-jobs-downloads-'));
    files = await mkdtemp(join(tmpdir(), 'web-jobs-files-'));
    page = await browser.newPage();
    const cdp = await browser.target().createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
    page.on('requestfinished', (request) => {
      if (request.url().includes('/documents/import')) imports.push(String(request.response()?.status()));
    });
    page.on('requestfailed', (request) => {
      if (request.url().includes('/documents/import')) imports.push(`failed: ${request.failure()?.errorText}`);
    });
    await signInPage(page, stack, user.email, user.name);
    // Six services and a browser: slow to start on a busy machine.
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    for (const dir of [downloads, files]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  const js = <T>(expression: string) => page.evaluate(expression) as Promise<T>;
  const dialogText = () => js<string>(`document.querySelector('${DIALOG}')?.textContent ?? ''`);
  const dialogAlert = () =>
    js<string | null>(`document.querySelector('${DIALOG} [role="alert"]')?.textContent ?? null`);
  /** Waits for the dialog's alert to say `text`; a failure tells what the dialog said instead. */
  const alertSays = (text: string) =>
    eventually(
      async () => {
        const alert = await dialogAlert();
        if (alert !== text) {
          throw new Error(`the alert says ${alert}; the dialog: ${await dialogText()}; imports: ${imports.join(', ')}`);
        }
      },
      // A refusal is quick (it once waited behind streams of pages the browser had cached; see
      // web/src/notifications/live-stream.ts), but the platform shares a busy machine with other tests.
      { timeoutMs: 20_000 },
    );

  /** The names inside a downloaded zip, once Chromium has finished writing it. */
  async function downloadedZip(name: string): Promise<string[]> {
    await eventually(async () => expect(await readdir(downloads)).toContain(name), { timeoutMs: 20_000 });
    const { stdout } = await run('unzip', ['-Z1', join(downloads, name)]);
    return stdout.split('\n').filter(Boolean).sort();
  }

  async function fileOf(name: string, bytes: Buffer): Promise<string> {
    const path = join(files, name);
    await writeFile(path, bytes);
    return path;
  }

  async function chooseFile(path: string): Promise<void> {
    const input = await page.waitForSelector(`${DIALOG} input[type="file"]`);
    await input?.uploadFile(path);
  }

  it('exports a document with its sub-pages by keyboard, shows the progress and downloads a zip mirroring the tree', async () => {
    await page.goto(`${stack.gatewayUrl}/w/${workspaceId}/d/${ids.book}`);
    await page.locator(aria('Export', 'button')).wait();
    await page.focus('.export-menu [aria-haspopup="menu"]');
    // ArrowUp opens the menu on its last item; the three single formats stay as they were.
    await page.keyboard.press('ArrowUp');
    expect((await focused(page)).name).toBe('With sub-pages (zip)…');
    const items = await page.$$eval('[role="menuitem"]', (nodes) => nodes.map((n) => n.textContent));
    expect(items).toEqual(['PDF', 'Word', 'Markdown', 'With sub-pages (zip)…']);
    await page.keyboard.press('Enter');

    await page.locator(DIALOG).wait();
    expect(await dialogText()).toContain('Export “Handbuch” with sub-pages');
    expect(await seriousAxeViolations(page)).toEqual([]);
    // Markdown is chosen first; an arrow moves the choice to HTML.
    await tabTo(page, 'Markdown');
    await page.keyboard.press('ArrowDown');
    expect(await js('document.activeElement.value')).toBe('html');
    await tabTo(page, 'Start export');
    await page.keyboard.press('Enter');

    await page.locator(aria('Export progress', 'progressbar')).wait();
    await page.locator(`${DIALOG} ::-p-aria([name="Download"][role="button"])`).setTimeout(60_000).wait();
    expect(await dialogText()).toContain('Export finished: 4 of 4 documents.');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await tabTo(page, 'Download');
    await page.keyboard.press('Enter');
    expect(await downloadedZip('Handbuch.zip')).toEqual([
      'Handbuch.html',
      'Handbuch/Kapitel 1.html',
      'Handbuch/Kapitel 1/Abschnitt.html',
      'Handbuch/Kapitel 2.html',
      '_tree.json',
    ]);

    // Escape closes the dialog and gives focus back to the Export button.
    await page.keyboard.press('Escape');
    await eventually(async () => expect(await page.$(DIALOG)).toBeNull());
    expect((await focused(page)).name).toBe('Export');
    // Reopened, it still shows the finished job.
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await page.locator(DIALOG).wait();
    expect(await dialogText()).toContain('Export finished');
    await page.keyboard.press('Escape');
  }, 90_000);

  it('imports a zip: its folder becomes a page with children, links between its files lead to the new documents', async () => {
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from('# Übersicht\n\nWillkommen.\n'), 'Übersicht.md');
    zip.addBuffer(Buffer.from('# Packliste\n\nSiehe die [Route](Route.md).\n'), 'Reise/Packliste.md');
    zip.addBuffer(Buffer.from('# Route\n\nErst nach Norden.\n'), 'Reise/Route.md');
    zip.end();
    const path = await fileOf('reise.zip', await buffer(zip.outputStream));

    await page.goto(`${stack.gatewayUrl}/w/${workspaceId}/d/${ids.two}`);
    await (await page.waitForSelector(aria('Import', 'button')))?.focus();
    expect((await focused(page)).name).toBe('Import');
    await page.keyboard.press('Enter');
    await page.locator(DIALOG).wait();
    // This server's limit (IMPORT_MAX_BYTES), as the export service tells it.
    await eventually(async () => expect(await dialogText()).toContain('Up to 4.0 KB.'));
    expect(await dialogText()).toContain('Import under this page (“Kapitel 2”)');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await chooseFile(path);
    await tabTo(page, 'Start import');
    await page.keyboard.press('Enter');

    const open = page.locator(`${DIALOG} ::-p-aria([name="Open imported documents"][role="link"])`);
    await open
      .setTimeout(60_000)
      .wait()
      .catch(async (error) => {
        throw new Error(`${error}; the dialog said: ${await dialogText()}`);
      });
    expect(await dialogText()).toContain('Import finished: 4 documents created.');
    expect(await seriousAxeViolations(page)).toEqual([]);
    // The new top-level documents are in the tree without a reload (behind the modal dialog,
    // which keeps them out of the accessibility tree meanwhile: found by their labels).
    await page.waitForSelector('[role="treeitem"][aria-label="Übersicht"]');
    await page.waitForSelector('[role="treeitem"][aria-label="Reise"]');

    const tree = (
      await stack.request('GET', `/api/v1/documents/tree?workspaceId=${workspaceId}`, { token: user.token })
    ).body.data as Array<{ id: string; title: string; children: Array<{ id: string; title: string }> }>;
    const reise = tree.find((node) => node.title === 'Reise');
    const packliste = reise?.children.find((node) => node.title === 'Packliste');
    const route = reise?.children.find((node) => node.title === 'Route');
    expect(packliste && route).toBeTruthy();

    await tabTo(page, 'Open imported documents');
    await page.keyboard.press('Enter');
    await eventually(async () => expect(await page.$(DIALOG)).toBeNull());
    await page.waitForFunction(`location.pathname.startsWith('/w/${workspaceId}/d/')`);
    expect(await js('location.pathname')).not.toBe(`/w/${workspaceId}/d/${ids.two}`);

    // Packliste's link is the web app's path of Route, and it opens Route.
    await page.goto(`${stack.gatewayUrl}/w/${workspaceId}/d/${packliste?.id}`);
    const link = `.editor-area a[href$="/w/${workspaceId}/d/${route?.id}"]`;
    await page.waitForSelector(link, { timeout: 30_000 });
    await page.goto(await page.$eval(link, (a) => (a as unknown as { href: string }).href));
    await page.waitForFunction(`document.title === 'Route · Wiki'`);
  }, 90_000);

  it('imports a single file under the open page when asked to', async () => {
    const path = await fileOf('Notiz.md', Buffer.from('# Notiz\n\nUnter Kapitel 1.\n'));
    await page.goto(`${stack.gatewayUrl}/w/${workspaceId}/d/${ids.one}`);
    await (await page.waitForSelector(aria('Import', 'button')))?.focus();
    await page.keyboard.press('Enter');
    await page.locator(DIALOG).wait();
    await chooseFile(path);
    await tabTo(page, 'Import under this page (“Kapitel 1”)');
    await page.keyboard.press('Space');
    await tabTo(page, 'Start import');
    await page.keyboard.press('Enter');

    const link = `${DIALOG} a[href^="/w/${workspaceId}/d/"]`;
    await page.waitForSelector(link, { timeout: 60_000 });
    expect(await dialogText()).toContain('Import finished: 1 document created.');
    const id = (await page.$eval(link, (a) => a.getAttribute('href') ?? '')).split('/').pop();
    const made = (await stack.request('GET', `/api/v1/documents/${id}`, { token: user.token })).body.data;
    expect({ title: made.title, parentId: made.parentId }).toEqual({ title: 'Notiz', parentId: ids.one });
    await page.keyboard.press('Escape');
  }, 90_000);

  it('says in words why a file is refused: its type, or its size', async () => {
    await page.goto(`${stack.gatewayUrl}/w/${workspaceId}`);
    await page.locator(aria('Import', 'button')).click();
    await page.locator(DIALOG).wait();

    await chooseFile(await fileOf('notes.txt', Buffer.from('just text')));
    await page.locator(`${DIALOG} ::-p-aria([name="Start import"][role="button"])`).click();
    await alertSays(
      '“notes.txt” cannot be imported: only Markdown (.md), HTML (.html, .htm) and Word (.docx) files, or a .zip of them, are taken.',
    );
    expect(await seriousAxeViolations(page)).toEqual([]);

    await chooseFile(await fileOf('big.md', Buffer.alloc(IMPORT_MAX_BYTES * 2, 'a')));
    await page.locator(`${DIALOG} ::-p-aria([name="Start import"][role="button"])`).click();
    await alertSays('“big.md” is too large to import: files may be at most 4.0 KB.');
    await page.keyboard.press('Escape');
    await eventually(async () => expect(await page.$(DIALOG)).toBeNull());
    expect((await focused(page)).name).toBe('Import');
  }, 90_000);

  it('reaches a closed dialog’s export through its notification', async () => {
    await page.goto(`${stack.gatewayUrl}/w/${workspaceId}/settings`);
    await page.locator(aria('Export workspace', 'button')).click();
    await page.locator(DIALOG).wait();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.locator(`${DIALOG} ::-p-aria([name="Start export"][role="button"])`).click();
    await page.locator(aria('Export progress', 'progressbar')).wait();
    await page.keyboard.press('Escape');
    await eventually(async () => expect(await page.$(DIALOG)).toBeNull());
    expect((await focused(page)).name).toBe('Export workspace');

    const download = aria('Download: The export is ready', 'button');
    await eventually(
      async () => {
        await page.locator('.notifications-button').click();
        await page.locator(aria('Notifications', 'dialog')).wait();
        const found = await page.waitForSelector(download, { timeout: 3_000 }).catch(() => null);
        if (!found) await page.keyboard.press('Escape');
        expect(found).not.toBeNull();
      },
      // A refusal is quick (it once waited behind streams of pages the browser had cached; see
      // web/src/notifications/live-stream.ts), but the platform shares a busy machine with other tests.
      { timeoutMs: 20_000 },
    );
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.locator(download).click();
    const names = await downloadedZip('workspace.zip');
    expect(names.filter((name) => !name.includes('/'))).toEqual(
      expect.arrayContaining(['Handbuch.md', 'Reise.md', 'Übersicht.md']),
    );
    expect(names).toContain('Reise/Route.md');
  }, 90_000);
});
