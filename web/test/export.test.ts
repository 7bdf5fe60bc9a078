import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDocument, eventually, paragraph, type SignedInUser, type Stack, signInNew } from '@wiki/testing';
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { launchBrowser, seriousAxeViolations, signInPage } from './helpers/browser.js';
import { startWebPlatform } from './helpers/platform.js';

const EXPORT = '::-p-aria([name="Export"][role="button"])';
const MENU = '::-p-aria([name="Export"][role="menu"])';
const TITLE = 'Bericht Q3: Übersicht';
/** The server's file name for that title (a colon cannot be in one). */
const FILE = 'Bericht Q3_ Übersicht';

// Export from the document page (issue 28, point 5) against the real gateway, document and export
// services: the menu by keyboard, each format downloaded by the browser, progress and errors.
describe('the Export menu: PDF, Word and Markdown downloads', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let user: SignedInUser;
  let downloads: string;
  let documentId: string;
  /** When set, the export requests are answered by this instead of the server. */
  let intercept: ((request: HTTPRequest) => void) | null = null;

  beforeAll(async () => {
    stack = await startWebPlatform(['workspace', 'document', 'export']);
    browser = await launchBrowser();
    user = await signInNew(stack, 'Erika Exporter');
    documentId = (
      await createDocument(stack, user, { title: TITLE, content: [paragraph('Umsatz stieg im dritten Quartal.')] })
    ).id;
    const { workspaceId } = (await stack.request('GET', `/api/v1/documents/${documentId}`, { token: user.token })).body
      .data;

    downloads = await mkdtemp(join(tmpdir(), 'web-export-'));
    page = await browser.newPage();
    const cdp = await browser.target().createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      if (intercept && request.url().includes('/export?')) intercept(request);
      else void request.continue();
    });
    await signInPage(page, stack, user.email, user.name);
    await page.goto(`${stack.gatewayUrl}/w/${workspaceId}/d/${documentId}`);
    await page.locator(EXPORT).wait();
  });
  afterEach(() => {
    intercept = null;
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    if (downloads) await rm(downloads, { recursive: true, force: true });
  });

  const js = <T>(expression: string) => page.evaluate(expression) as Promise<T>;
  const activeText = () => js<string>('document.activeElement?.textContent ?? ""');
  const statusText = () => js<string>(`document.querySelector('.export-menu [role="status"]').textContent`);
  const alertText = () =>
    js<string | null>(`document.querySelector('.export-menu [role="alert"]')?.textContent ?? null`);

  /** The finished file (Chromium writes `<name>.crdownload` first). */
  async function downloaded(name: string): Promise<Buffer> {
    return eventually(
      async () => {
        const files = await readdir(downloads);
        expect(files).toContain(name);
        return readFile(join(downloads, name));
      },
      { timeoutMs: 20_000 },
    );
  }

  it('downloads a PDF under the title with Enter, saying it is being prepared meanwhile', async () => {
    // The request waits here until the status line has been read.
    let held: HTTPRequest | null = null;
    intercept = (request) => {
      held = request;
    };
    await page.focus('.export-menu [aria-haspopup="menu"]');
    await page.keyboard.press('Enter');
    await page.locator(MENU).wait();
    expect(await activeText()).toBe('PDF');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.keyboard.press('Enter');

    await eventually(() => expect(held).not.toBeNull());
    expect(await statusText()).toBe('Preparing PDF…');
    // The menu closed and focus is back on its button.
    expect(await page.$(MENU)).toBeNull();
    expect(await activeText()).toBe('Export');
    intercept = null;
    await (held as unknown as HTTPRequest).continue();

    await eventually(async () => expect(await statusText()).toBe(`Downloaded ${FILE}.pdf`), { timeoutMs: 30_000 });
    const pdf = await downloaded(`${FILE}.pdf`);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('downloads Word with ArrowDown and Space, and Markdown with ArrowUp and Enter', async () => {
    await page.focus('.export-menu [aria-haspopup="menu"]');
    await page.keyboard.press('ArrowDown');
    expect(await activeText()).toBe('PDF');
    await page.keyboard.press('ArrowDown');
    expect(await activeText()).toBe('Word');
    await page.keyboard.press('Space');
    await eventually(async () => expect(await statusText()).toBe(`Downloaded ${FILE}.docx`), { timeoutMs: 30_000 });
    const docx = await downloaded(`${FILE}.docx`);
    // A .docx is a zip.
    expect(docx.subarray(0, 2).toString('latin1')).toBe('PK');

    // ArrowUp opens on the last item, the zip with sub-pages (web/test/jobs.test.ts); Markdown is above it.
    await page.keyboard.press('ArrowUp');
    expect(await activeText()).toBe('With sub-pages (zip)…');
    await page.keyboard.press('ArrowUp');
    expect(await activeText()).toBe('Markdown');
    // Arrows wrap around; Home and End go to the ends.
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowDown');
    expect(await activeText()).toBe('PDF');
    await page.keyboard.press('End');
    expect(await activeText()).toBe('With sub-pages (zip)…');
    await page.keyboard.press('ArrowUp');
    expect(await activeText()).toBe('Markdown');
    await page.keyboard.press('Enter');
    await eventually(async () => expect(await statusText()).toBe(`Downloaded ${FILE}.md`), { timeoutMs: 30_000 });
    const markdown = (await downloaded(`${FILE}.md`)).toString('utf8');
    expect(markdown).toContain('Umsatz stieg im dritten Quartal.');
  });

  it('closes the menu with Escape, giving focus back to the Export button', async () => {
    await page.locator(EXPORT).click();
    await page.locator(MENU).wait();
    expect(await activeText()).toBe('PDF');
    await page.keyboard.press('Escape');
    expect(await page.$(MENU)).toBeNull();
    expect(await activeText()).toBe('Export');
    expect(await js('document.activeElement?.getAttribute("aria-expanded")')).toBe('false');
  });

  it('says clearly when there are too many exports at once, or the export service is unavailable', async () => {
    const answer = (status: number, code: string) => (request: HTTPRequest) =>
      void request.respond({
        status,
        contentType: 'application/json',
        headers: status === 429 ? { 'retry-after': '5' } : {},
        body: JSON.stringify({ success: false, error: { code, message: 'refused by the test' } }),
      });

    intercept = answer(429, 'TOO_MANY_REQUESTS');
    await page.locator(EXPORT).click();
    await page.locator('::-p-aria([name="PDF"][role="menuitem"])').click();
    await eventually(async () => expect(await alertText()).toContain('Too many exports are running for you at once'));
    expect(await statusText()).toBe('');
    expect(await seriousAxeViolations(page)).toEqual([]);

    intercept = answer(503, 'SERVICE_UNAVAILABLE');
    await page.locator(EXPORT).click();
    await page.locator('::-p-aria([name="Word"][role="menuitem"])').click();
    await eventually(async () =>
      expect(await alertText()).toContain(
        'The export service is busy or unavailable right now, so the Word was not made',
      ),
    );

    // The next export that works clears the alert.
    intercept = null;
    await page.locator(EXPORT).click();
    await page.locator('::-p-aria([name="Markdown"][role="menuitem"])').click();
    await eventually(async () => expect(await statusText()).toBe(`Downloaded ${FILE}.md`), { timeoutMs: 30_000 });
    expect(await alertText()).toBeNull();
  });
});
