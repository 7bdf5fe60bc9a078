import { createDocument, eventually, paragraph, type SignedInUser, type Stack, signInNew } from '@wiki/testing';
import type { Page } from 'puppeteer-core';
import { seriousAxeViolations } from './helpers/browser.js';
import { useTeamFixture } from './helpers/team.js';

const TITLE = '::-p-aria([name="Title"][role="textbox"])';
const EDITOR = '::-p-aria([name="Document content"][role="textbox"])';
const OFFLINE = 'Offline — changes will sync when you reconnect';
/** A 1×1 PNG. */
const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

// The document page (issue 27, point 5) against the real gateway, document and collab services.
describe('the document page: title, live editor, presence, roles, offline', () => {
  const team = useTeamFixture({
    services: ['workspace', 'document', 'collab'],
    people: ['Ada Owner', ['Ben Editor', 'EDITOR'], ['Vic Viewer', 'VIEWER']],
  });
  let stack: Stack;
  let owner: SignedInUser;
  let editor: SignedInUser;
  let viewer: SignedInUser;
  let workspaceId: string;
  beforeAll(() => {
    ({ stack, workspaceId } = team);
    [owner, editor, viewer] = team.people;
  });

  const newDocument = (title: string, text: string, extra: Record<string, unknown> = {}) =>
    createDocument(stack, owner, { workspaceId, title, content: [paragraph(text)], ...extra });

  const api = (method: string, path: string, as: SignedInUser, body?: unknown) => team.api(method, path, as, body);
  const openAs = (user: SignedInUser, documentId: string) => team.openDocument(user, documentId);

  /** The text of an element found by an ARIA selector (tests are type-checked without the DOM's types). */
  const textOf = (page: Page, selector: string) =>
    page
      .locator(selector)
      .map((element) => element.textContent ?? '')
      .wait();

  const statusText = (page: Page) => textOf(page, '.connection-status [role="status"]');
  const waitForStatus = (page: Page, text: string) =>
    eventually(async () => expect(await statusText(page)).toBe(text), { timeoutMs: 20_000 });
  const waitForEditorText = (page: Page, text: string) =>
    eventually(async () => expect(await textOf(page, EDITOR)).toContain(text), { timeoutMs: 20_000 });

  /** Puts the caret at the end of the document and types. */
  async function typeAtEnd(page: Page, text: string) {
    await page.locator(EDITOR).click();
    await page.keyboard.down('Control');
    await page.keyboard.press('End');
    await page.keyboard.up('Control');
    await page.keyboard.type(text);
  }

  /** Evaluates `expression` in the page (a string: these tests are type-checked without the DOM's types). */
  const js = (page: Page, expression: string) => page.evaluate(expression) as Promise<unknown>;
  const stored = async (documentId: string) => (await api('GET', `/documents/${documentId}`, owner)).body.data;
  const activeLabel = (page: Page) => page.evaluate('document.activeElement?.getAttribute("aria-label") ?? null');

  it("shows two people each other's text as they type, with their names among who is here", async () => {
    const doc = await newDocument('Shared notes', 'Start here.');
    const ada = await openAs(owner, doc.id);
    const ben = await openAs(editor, doc.id);
    await Promise.all([waitForStatus(ada, 'Connected'), waitForStatus(ben, 'Connected')]);
    await waitForEditorText(ada, 'Start here.');

    await typeAtEnd(ada, ' Ada adds a line.');
    await waitForEditorText(ben, 'Ada adds a line.');
    await typeAtEnd(ben, ' Ben answers.');
    await waitForEditorText(ada, 'Ben answers.');

    await eventually(async () => expect(await textOf(ada, '::-p-aria([name="People here"])')).toContain('Ben Editor'));
    await eventually(async () => expect(await textOf(ben, '::-p-aria([name="People here"])')).toContain('Ada Owner'));
    // Ben's caret in Ada's editor carries his name.
    await eventually(async () =>
      expect(
        await js(ada, `[...document.querySelectorAll('.bn-collaboration-cursor__label')].map((l) => l.textContent)`),
      ).toContain('Ben Editor'),
    );
    expect(await seriousAxeViolations(ada)).toEqual([]);
    // What they wrote is stored by the collab service.
    await eventually(async () => expect((await stored(doc.id)).content).toContain('Ben answers.'), {
      timeoutMs: 20_000,
    });
  });

  it('shows what the REST API writes in the open editor', async () => {
    const doc = await newDocument('Written elsewhere', 'Before the API.');
    const page = await openAs(editor, doc.id);
    await waitForStatus(page, 'Connected');
    await waitForEditorText(page, 'Before the API.');
    const res = await api('PUT', `/documents/${doc.id}`, owner, { content: [paragraph('Written through the API.')] });
    expect(res.status).toBe(200);
    await waitForEditorText(page, 'Written through the API.');
  });

  it('keeps a VIEWER from changing the title or the text', async () => {
    const doc = await newDocument('Read only for some', 'Nothing to change here.');
    const page = await openAs(viewer, doc.id);
    await waitForStatus(page, 'Connected');
    await waitForEditorText(page, 'Nothing to change here.');
    expect(
      await page.$eval('input[aria-label="Title"]', (input) => (input as unknown as { readOnly: boolean }).readOnly),
    ).toBe(true);
    expect(await js(page, `document.querySelector('.bn-editor').getAttribute('contenteditable')`)).toBe('false');

    await page.locator(TITLE).click();
    await page.keyboard.type('Viewer title');
    await typeAtEnd(page, ' Viewer text.');
    expect(
      await page.$eval('input[aria-label="Title"]', (input) => (input as unknown as { value: string }).value),
    ).toBe('Read only for some');
    expect(await textOf(page, EDITOR)).not.toContain('Viewer text');
    expect(await textOf(page, 'main')).toContain('does not allow editing');
    // Nothing for a viewer to set: no icon or cover controls.
    expect(await page.$('::-p-aria([name="Add icon"])')).toBeNull();
    expect(await page.$('::-p-aria([name="Add cover"])')).toBeNull();
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect((await stored(doc.id)).title).toBe('Read only for some');
  });

  it('says when it is offline, keeps what is typed meanwhile and sends it after reconnecting', async () => {
    const doc = await newDocument('Train ride', 'Online start.');
    const writer = await openAs(editor, doc.id);
    const reader = await openAs(owner, doc.id);
    await Promise.all([waitForStatus(writer, 'Connected'), waitForStatus(reader, 'Connected')]);

    await writer.setOfflineMode(true);
    await waitForStatus(writer, OFFLINE);
    await typeAtEnd(writer, ' Typed in a tunnel.');
    await waitForEditorText(writer, 'Typed in a tunnel.');
    expect(await textOf(reader, EDITOR)).not.toContain('Typed in a tunnel.');

    await writer.setOfflineMode(false);
    await waitForStatus(writer, 'Connected');
    await waitForEditorText(reader, 'Typed in a tunnel.');
  });

  it('reaches the editor from the title by keyboard, and saves the title through edits of the text', async () => {
    const doc = await newDocument('Old title', 'Some text.');
    const page = await openAs(editor, doc.id);
    await waitForStatus(page, 'Connected');
    // A content save moves the revision on: the title's If-Match must cope with that.
    const before = (await stored(doc.id)).revision;
    await typeAtEnd(page, ' More text.');
    await eventually(async () => expect((await stored(doc.id)).revision).toBeGreaterThan(before), {
      timeoutMs: 20_000,
    });

    await page.locator(TITLE).click();
    await page.keyboard.down('Control');
    await page.keyboard.press('a');
    await page.keyboard.up('Control');
    await page.keyboard.type('New title');
    await page.keyboard.press('Tab');
    expect(await activeLabel(page)).toBe('Document content');
    await eventually(async () => expect((await stored(doc.id)).title).toBe('New title'));
    // The tab's title follows the saved one once the page has it back (a moment after the save).
    await page.waitForFunction(`document.title === 'New title · Wiki'`);

    await page.locator(TITLE).click();
    await page.keyboard.press('Enter');
    expect(await activeLabel(page)).toBe('Document content');
    expect(await textOf(page, 'main')).not.toContain('could not be saved');
  });

  it('reloads the title and says so when someone else renamed the document meanwhile', async () => {
    const doc = await newDocument('Contested', 'Text.');
    const page = await openAs(editor, doc.id);
    // The owner's rename lands between the typing and its save: the page's save waits for it. (Renamed
    // earlier, the page would hear of it at once and the typing would build on their title.)
    let renamed = false;
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      if (request.isInterceptResolutionHandled()) return;
      if (!renamed && request.method() === 'PUT' && request.url().endsWith(`/api/v1/documents/${doc.id}`)) {
        renamed = true;
        void api('PUT', `/documents/${doc.id}`, owner, { title: 'Their title' }).then((res) => {
          expect(res.status).toBe(200);
          return request.continue();
        });
        return;
      }
      void request.continue();
    });

    await page.locator(TITLE).click();
    await page.keyboard.type(' and mine');
    const alert = await page.locator('::-p-aria([role="alert"])').wait();
    expect(alert).toBeTruthy();
    expect(await textOf(page, '::-p-aria([role="alert"])')).toContain(
      'Someone else renamed this document to “Their title”',
    );
    expect(
      await page.$eval('input[aria-label="Title"]', (input) => (input as unknown as { value: string }).value),
    ).toBe('Their title');
    expect((await stored(doc.id)).title).toBe('Their title');
  });

  it('sets and removes the icon and the cover image', async () => {
    const doc = await newDocument('Decorated', 'Text.');
    const page = await openAs(editor, doc.id);

    await page.locator('::-p-aria([name="Add icon"])').click();
    await page.locator('::-p-aria([name="Use 📘"])').click();
    await eventually(async () => expect((await stored(doc.id)).icon).toBe('📘'));
    await page.locator('::-p-aria([name="Change icon (📘)"])').wait();

    await page.locator('::-p-aria([name="Add cover"])').click();
    await page.locator('::-p-aria([name="Cover image URL"])').fill('http://insecure.test/cover.png');
    await page.locator('::-p-aria([name="Save cover"])').click();
    expect(await textOf(page, '::-p-aria([role="alert"])')).toContain('https://');
    // The cover's host answers from here (the test machine has no way out).
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      if (request.url().startsWith('https://images.test/')) {
        void request.respond({ status: 200, contentType: 'image/png', body: Buffer.from(PIXEL_PNG, 'base64') });
      } else void request.continue();
    });
    await page.locator('::-p-aria([name="Cover image URL"])').fill('https://images.test/cover.png');
    await page.keyboard.press('Enter');
    await eventually(async () => expect((await stored(doc.id)).coverImageUrl).toBe('https://images.test/cover.png'));
    // The cover is decorative: an image with an empty alt text.
    await page.locator('img.document-cover').wait();
    expect(await js(page, `document.querySelector('img.document-cover').getAttribute('alt')`)).toBe('');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.locator('::-p-aria([name="Change cover"])').click();
    await page.locator('::-p-aria([name="Remove cover"])').click();
    await eventually(async () => expect((await stored(doc.id)).coverImageUrl).toBeNull());
    await page.locator('::-p-aria([name="Change icon (📘)"])').click();
    await page.locator('::-p-aria([name="Remove icon"])').click();
    await eventually(async () => expect((await stored(doc.id)).icon ?? '').toBe(''));
  });

  it('shows breadcrumbs that lead up the tree', async () => {
    const parent = await newDocument('Handbook', 'Top.');
    const child = await newDocument('Onboarding', 'Below.', { parentId: parent.id });
    const page = await openAs(editor, child.id);
    const trail = await textOf(page, '::-p-aria([name="Breadcrumbs"][role="navigation"])');
    expect(trail).toContain('Handbook');
    expect(trail).toContain('Onboarding');
    await page.locator('::-p-aria([name="Handbook"][role="link"])').click();
    await eventually(async () => expect(page.url()).toContain(`/d/${parent.id}`));
    await eventually(async () =>
      expect(
        await page.$eval('input[aria-label="Title"]', (input) => (input as unknown as { value: string }).value),
      ).toBe('Handbook'),
    );
  });

  it('shows an archived document read-only with a Restore button that brings editing back', async () => {
    const doc = await newDocument('Old plans', 'Archived text.');
    expect((await api('PUT', `/documents/${doc.id}`, owner, { isArchived: true })).status).toBe(200);
    const page = await openAs(editor, doc.id);
    expect(await textOf(page, '::-p-aria([name="Archived"])')).toContain('archived');
    expect(
      await page.$eval('input[aria-label="Title"]', (input) => (input as unknown as { readOnly: boolean }).readOnly),
    ).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.locator('::-p-aria([name="Restore"][role="button"])').click();
    await eventually(async () =>
      expect(
        await page.$eval('input[aria-label="Title"]', (input) => (input as unknown as { readOnly: boolean }).readOnly),
      ).toBe(false),
    );
    expect((await stored(doc.id)).isArchived).toBe(false);
    await waitForStatus(page, 'Connected');
    await typeAtEnd(page, ' Back in use.');
    await eventually(async () => expect((await stored(doc.id)).content).toContain('Back in use.'), {
      timeoutMs: 20_000,
    });
  });

  it('answers a document that does not exist, or of another workspace, with the not-found page', async () => {
    const stranger = await signInNew(stack, 'Sam Stranger');
    const doc = await newDocument('Private', 'Members only.');
    for (const [user, id] of [
      [editor, '00000000-0000-4000-8000-000000000000'],
      [stranger, doc.id],
    ] as const) {
      const page = await team.open(`/w/${workspaceId}/d/${id}`, user);
      await page.locator('::-p-aria([name="Not found"][role="heading"])').wait();
    }
  });
});
