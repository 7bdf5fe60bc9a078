import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDocument, eventually, paragraph, type SignedInUser, type Stack, signInNew } from '@wiki/testing';
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { launchBrowser, seriousAxeViolations, signInPage } from './helpers/browser.js';
import { startWebPlatform } from './helpers/platform.js';

const EDITOR = '::-p-aria([name="Document content"][role="textbox"])';
const ATTACHMENTS = '::-p-aria([name="Attachments"][role="button"])';
const PANEL = '::-p-aria([name="Attachments"][role="complementary"])';
/** The largest upload the service takes here: small, so that a 413 is cheap to provoke. */
const MAX_BYTES = 20_000;

interface Attachment {
  id: string;
  fileName: string;
  url: string;
  width: number | null;
}

// Files in the browser (issue 28, point 4) against the real gateway, document, collab and attachment
// services: uploads by the picker, paste and drop, shown from object URLs of files fetched with the
// person's token, their errors, the Attachments panel, and a published document's images.
describe('files: uploads into the editor, the Attachments panel, images on the public page', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let owner: SignedInUser;
  let workspaceId: string;
  let documentId: string;
  let folder: string;
  /** When set, upload requests are answered by this instead of the server. */
  let intercept: ((request: HTTPRequest) => void) | null = null;

  const js = <T>(expression: string) => page.evaluate(expression) as Promise<T>;
  const attachments = async (id = documentId): Promise<Attachment[]> =>
    (await stack.request('GET', `/api/v1/attachments/document/${id}`, { token: owner.token })).body.data;

  /** A PNG of `width` × `height` drawn by the page's canvas, as base64. */
  const pngBase64 = (width: number, height: number) =>
    js<string>(`(async () => {
      const canvas = document.createElement('canvas');
      canvas.width = ${width}; canvas.height = ${height};
      const g = canvas.getContext('2d'); g.fillStyle = '#3366cc'; g.fillRect(0, 0, ${width}, ${height});
      const blob = await new Promise((done) => canvas.toBlob(done, 'image/png'));
      const bytes = new Uint8Array(await blob.arrayBuffer());
      let text = ''; for (const b of bytes) text += String.fromCharCode(b);
      return btoa(text);
    })()`);

  /** Dispatches a paste (or a drop on the last block) of one file at the editor. */
  const sendFile = (kind: 'paste' | 'drop', name: string, type: string, base64: string) =>
    js<void>(`(() => {
      const bytes = Uint8Array.from(atob(${JSON.stringify(base64)}), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], ${JSON.stringify(name)}, { type: ${JSON.stringify(type)} }));
      const editor = document.querySelector('[aria-label="Document content"]');
      if (${JSON.stringify(kind)} === 'paste') {
        editor.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      } else {
        const blocks = editor.querySelectorAll('.bn-block-content');
        const box = blocks[blocks.length - 1].getBoundingClientRect();
        const at = { clientX: box.left + 10, clientY: box.bottom - 2, dataTransfer: data, bubbles: true, cancelable: true };
        editor.dispatchEvent(new DragEvent('dragover', at));
        editor.dispatchEvent(new DragEvent('drop', at));
      }
    })()`);

  /** Puts the caret at the end of the editor's text. */
  async function caretAtEnd() {
    await page.locator(EDITOR).click();
    await page.keyboard.down('Control');
    await page.keyboard.press('End');
    await page.keyboard.up('Control');
  }

  beforeAll(async () => {
    stack = await startWebPlatform(['workspace', 'document', 'collab', 'attachment'], {
      UPLOAD_MAX_BYTES: String(MAX_BYTES),
    });
    browser = await launchBrowser();
    owner = await signInNew(stack, 'Fiona Files');
    const doc = await createDocument(stack, owner, { title: 'Field notes', content: [paragraph('First line.')] });
    documentId = doc.id;
    workspaceId = (await stack.request('GET', `/api/v1/documents/${documentId}`, { token: owner.token })).body.data
      .workspaceId;
    folder = await mkdtemp(join(tmpdir(), 'web-files-'));

    page = await browser.newPage();
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      if (intercept && request.url().includes('/attachments/upload')) intercept(request);
      else void request.continue();
    });
    await signInPage(page, stack, owner.email, owner.name);
    await page.goto(`${stack.gatewayUrl}/w/${workspaceId}/d/${documentId}`);
    await page.locator(EDITOR).wait();
    await page.locator('::-p-text(First line.)').wait();
  });
  afterEach(() => {
    intercept = null;
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('uploads an image through the image block’s file picker and shows it from a blob: URL at its width', async () => {
    const path = join(folder, 'chart.png');
    await writeFile(path, Buffer.from(await pngBase64(40, 30), 'base64'));

    await caretAtEnd();
    await page.keyboard.press('Enter');
    await page.keyboard.type('/image');
    await page.locator('.bn-suggestion-menu-item[aria-selected="true"]').wait();
    await page.keyboard.press('Enter');
    await page.locator('.bn-add-file-button').click();
    const [chooser] = await Promise.all([
      page.waitForFileChooser(),
      page.locator('.bn-panel [data-test="upload-input"]').click(),
    ]);
    await chooser.accept([path]);

    // Shown from an object URL (the CSP's img-src allows blob:), decoded at its natural size.
    const image = await page.waitForFunction(
      `(() => { const img = document.querySelector('img.bn-visual-media[alt="chart.png"]');
        return img && img.src.startsWith('blob:') && img.complete && img.naturalWidth > 0 ? img : null; })()`,
    );
    expect(await image.evaluate((img: any) => [img.naturalWidth, img.naturalHeight, img.width])).toEqual([40, 30, 40]);
    const [stored] = await attachments();
    expect(stored).toMatchObject({ fileName: 'chart.png', width: 40 });
    expect(stored.url).toMatch(/^\/api\/v1\/attachments\/file\?url=/);
    // Without the token the file is not served: the object URL is what makes it show.
    expect((await stack.request('GET', stored.url)).status).toBe(404);
  });

  it('uploads a pasted file and a dropped image, with progress shown while one is under way', async () => {
    await caretAtEnd();
    await page.keyboard.press('Enter');
    await sendFile('paste', 'notes.txt', 'text/plain', Buffer.from('Plain notes.\n').toString('base64'));
    await page.locator('::-p-text(notes.txt)').wait();
    await page.waitForFunction(`!document.querySelector('.upload-progress')`);

    // The dropped upload is held until its progress line has been read.
    let held: HTTPRequest | null = null;
    intercept = (request) => {
      held = request;
    };
    await sendFile('drop', 'dropped.png', 'image/png', await pngBase64(24, 12));
    const status = await page
      .locator('.upload-status [role="status"] .upload-progress')
      .map((element) => (element as unknown as { textContent: string | null }).textContent ?? '')
      .wait();
    expect(status).toMatch(/^Uploading “dropped\.png”: \d+%$/);
    await eventually(() => expect(held).not.toBeNull());
    intercept = null;
    await (held as unknown as HTTPRequest).continue();

    await page.waitForFunction(
      `document.querySelector('img.bn-visual-media[alt="dropped.png"]')?.src.startsWith('blob:')`,
    );
    await page.waitForFunction(`!document.querySelector('.upload-progress')`);
    const names = (await attachments()).map((a) => a.fileName);
    expect(names).toEqual(['chart.png', 'notes.txt', 'dropped.png']);
  });

  it('says clearly when a file is too large (413) or of a refused type (415)', async () => {
    await caretAtEnd();
    await page.keyboard.press('Enter');
    await sendFile('paste', 'huge.bin', 'application/octet-stream', Buffer.alloc(MAX_BYTES * 2, 7).toString('base64'));
    const tooLarge = await page
      .locator('.upload-status [role="alert"]')
      .map((element) => (element as unknown as { textContent: string | null }).textContent ?? '')
      .wait();
    expect(tooLarge).toContain('“huge.bin” is too large to upload');
    await page.locator('::-p-aria([name="Dismiss"][role="button"])').click();
    await page.waitForFunction(`!document.querySelector('.upload-status [role="alert"]')`);

    // No type is refused by this server's configuration, so the answer is the one it would give.
    intercept = (request) =>
      void request.respond({
        status: 415,
        contentType: 'application/json',
        body: JSON.stringify({
          success: false,
          error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Files of this type are not accepted' },
        }),
      });
    await sendFile('paste', 'tool.exe', 'application/octet-stream', Buffer.from('MZ').toString('base64'));
    const refused = await page
      .locator('.upload-status [role="alert"]')
      .map((element) => (element as unknown as { textContent: string | null }).textContent ?? '')
      .wait();
    expect(refused).toContain('“tool.exe” is a type of file this wiki does not accept');
    expect((await attachments()).map((a) => a.fileName)).not.toContain('huge.bin');
    await page.locator('::-p-aria([name="Dismiss"][role="button"])').click();
  });

  it('lists the attachments in a panel opened by keyboard, deletes one after confirming, and passes axe', async () => {
    // The same page the slash menu was used on: the editor keeps no aria-expanded (a textbox has none).
    expect(await js<number>('document.querySelectorAll("[contenteditable][aria-expanded]").length')).toBe(0);
    await page.locator(ATTACHMENTS).wait();
    await page.focus('::-p-aria([name="Attachments"][role="button"])');
    await page.keyboard.press('Enter');
    await page.locator(`${PANEL} >>> ::-p-text(notes.txt)`).wait();
    expect(await js<string>('document.activeElement.textContent')).toBe('Attachments');
    const entries = await js<string[]>(
      `[...document.querySelectorAll('.attachment-entry .attachment-name')].map((e) => e.textContent)`,
    );
    expect(entries).toEqual(['chart.png', 'notes.txt', 'dropped.png']);
    expect(await js<string>(`document.querySelector('.attachment-entry .attachment-meta').textContent`)).toContain(
      'image/png · 40 × 30',
    );
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.locator('::-p-aria([name="Delete notes.txt"][role="button"])').click();
    const dialog = '::-p-aria([name="Delete this file?"][role="alertdialog"])';
    await page.locator(dialog).wait();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.locator('::-p-aria([name="Delete file"][role="button"])').click();
    await page.waitForFunction(
      `![...document.querySelectorAll('.attachment-name')].some((e) => e.textContent === 'notes.txt')`,
    );
    expect((await attachments()).map((a) => a.fileName)).toEqual(['chart.png', 'dropped.png']);

    // Escape closes the panel and gives focus back to its button.
    await page.focus('::-p-aria([name="Close attachments"][role="button"])');
    await page.keyboard.press('Escape');
    await page.waitForFunction(`!document.querySelector('.attachments-panel')`);
    expect(await js<string>('document.activeElement.textContent')).toBe('Attachments');
  });

  it('shows a published document’s images on /p/<id> to someone not signed in', async () => {
    const doc = await createDocument(stack, owner, { workspaceId, title: 'Public gallery' });
    const form = new FormData();
    form.append('workspaceId', workspaceId);
    form.append('documentId', doc.id);
    form.append('file', new Blob([Buffer.from(await pngBase64(32, 16), 'base64')]), 'public.png');
    const upload = await fetch(`${stack.gatewayUrl}/api/v1/attachments/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}` },
      body: form,
    });
    expect(upload.status).toBe(201);
    const attachment = ((await upload.json()) as { data: Attachment }).data;
    const image = { type: 'image', props: { url: attachment.url, name: 'public.png', previewWidth: 32 }, children: [] };
    const content = [paragraph('A picture:'), image];
    expect(
      (await stack.request('PUT', `/api/v1/documents/${doc.id}`, { token: owner.token, body: { content } })).status,
    ).toBe(200);
    expect((await stack.request('POST', `/api/v1/documents/${doc.id}/publish`, { token: owner.token })).status).toBe(
      200,
    );

    const context = await browser.createBrowserContext();
    try {
      const visitor = await context.newPage();
      await visitor.goto(`${stack.gatewayUrl}/p/${doc.id}`);
      const shown = await visitor.waitForFunction(
        `(() => { const img = document.querySelector('img.bn-visual-media[alt="public.png"]');
          return img && img.src.startsWith('blob:') && img.complete && img.naturalWidth > 0 ? img : null; })()`,
      );
      expect(await shown.evaluate((img: any) => img.naturalWidth)).toBe(32);
      expect(await seriousAxeViolations(visitor)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
