import { createDocument, eventually, type SignedInUser, type Stack } from '@wiki/testing';
import type { Page } from 'puppeteer-core';
import { seriousAxeViolations } from './helpers/browser.js';
import { useTeamFixture } from './helpers/team.js';

const EDITOR = '::-p-aria([name="Document content"][role="textbox"])';
const HISTORY_BUTTON = '::-p-aria([name="History"][role="button"])';
const PANEL = '::-p-aria([name="History"][role="complementary"])';
const ENTRY = '.history-panel .revision-entry';

/** A paragraph with a fixed block id, so that edits of it are "changed" in a diff, not removed and added. */
const block = (id: string, text: string) => ({
  id,
  type: 'paragraph',
  props: {},
  content: [{ type: 'text', text, styles: {} }],
  children: [],
});

// The History panel of the document page (issue 28, point 6; ARCHITECTURE 5.16) against the real
// gateway, document and collab services. Every change is its own revision here (REVISION_INTERVAL_S=0).
describe('the History panel: revisions, preview with changes, restore, names, roles', () => {
  const team = useTeamFixture({
    services: ['workspace', 'document', 'collab'],
    people: ['Ada Owner', ['Ben Editor', 'EDITOR'], ['Vic Viewer', 'VIEWER']],
    env: { REVISION_INTERVAL_S: '0' },
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

  const api = (method: string, path: string, as: SignedInUser, body?: unknown) => team.api(method, path, as, body);
  const stored = async (documentId: string) => (await api('GET', `/documents/${documentId}`, owner)).body.data;
  const revisions = async (documentId: string) =>
    (await api('GET', `/documents/${documentId}/revisions?size=100`, owner)).body.data.content;

  /** A document Ada wrote ("The first draft.") and Ben rewrote ("The second draft, longer."). */
  async function twoVersions(title: string) {
    const doc = await createDocument(stack, owner, {
      workspaceId,
      title,
      content: [block('b1', 'The first draft.'), block('b2', 'A paragraph that goes away.')],
    });
    const res = await api('PUT', `/documents/${doc.id}`, editor, {
      content: [block('b1', 'The second draft, longer.'), block('b3', 'A paragraph that came later.')],
    });
    expect(res.status).toBe(200);
    return doc;
  }

  const openAs = (user: SignedInUser, documentId: string) => team.openDocument(user, documentId);

  /** Evaluates `expression` in the page (a string: these tests are type-checked without the DOM's types). */
  const js = <T>(page: Page, expression: string) => page.evaluate(expression) as Promise<T>;
  const entryTexts = (page: Page) =>
    js<string[]>(page, `[...document.querySelectorAll(${JSON.stringify(ENTRY)})].map((e) => e.textContent)`);
  const activeText = (page: Page) => js<string>(page, 'document.activeElement?.textContent ?? ""');
  const textOf = (page: Page, selector: string) =>
    page
      .locator(selector)
      .map((element) => element.textContent ?? '')
      .wait();
  const has = async (page: Page, selector: string) => (await page.$(selector)) !== null;

  /** Opens the panel from the keyboard (Tab order: Export, then History) and waits for its entries. */
  async function openHistory(page: Page, entries: number) {
    await page.locator('::-p-aria([name="Export"][role="button"])').click();
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    expect(await activeText(page)).toBe('History');
    await page.keyboard.press('Enter');
    await page.locator(PANEL).wait();
    await eventually(async () => expect((await entryTexts(page)).length).toBe(entries));
  }

  it('lists the revisions newest first with source and author, and previews one with the changes since', async () => {
    const doc = await twoVersions('Plans');
    const page = await openAs(editor, doc.id);
    await openHistory(page, 2);
    // Focus went into the panel, to its heading.
    expect(await js(page, 'document.activeElement?.tagName')).toBe('H2');

    const [newest, oldest] = await entryTexts(page);
    expect(newest).toContain('Edited by Ben Editor');
    expect(newest).toContain('Current version');
    expect(oldest).toContain('Edited by Ada Owner');
    // The newest holds the document as it is: its Restore is disabled, and it has no Delete.
    expect(await page.$$(`${ENTRY}:first-child .revision-actions button:not([disabled])`)).toHaveLength(0);

    // Tab from the heading reaches the entries; Enter on the older one opens its preview.
    await page.keyboard.press('Tab');
    expect(await activeText(page)).toBe('Close history');
    await page.focus(`${ENTRY}:nth-child(2) .revision-toggle`);
    await page.keyboard.press('Enter');
    const preview = '.revision-preview .revision-body';
    await eventually(async () =>
      expect(await js(page, `document.querySelectorAll('.revision-preview del').length`)).toBeGreaterThan(0),
    );
    const body = await textOf(page, preview);
    expect(body).toContain('A paragraph that goes away.');
    expect(body).toContain('A paragraph that came later.');
    const marked = (tag: string) =>
      js<string[]>(page, `[...document.querySelectorAll('.revision-body ${tag}')].map((e) => e.textContent)`);
    // Words of the old text that are gone now are <del>, words written since are <ins>.
    expect((await marked('del')).join(' ')).toContain('first');
    expect((await marked('del')).join(' ')).toContain('A paragraph that goes away.');
    expect((await marked('ins')).join(' ')).toContain('second');
    expect((await marked('ins')).join(' ')).toContain('A paragraph that came later.');
    expect(await seriousAxeViolations(page)).toEqual([]);

    // Without highlighting, the preview is the old version as it was.
    await page.locator('::-p-aria([name="Highlight changes since this version"][role="checkbox"])').click();
    await eventually(async () => expect(await textOf(page, preview)).not.toContain('came later'));
    expect(await textOf(page, preview)).toBe('The first draft.A paragraph that goes away.');

    // Escape closes the panel and gives focus back to the History button.
    await page.keyboard.press('Escape');
    await eventually(async () => expect(await has(page, PANEL)).toBe(false));
    expect(await activeText(page)).toBe('History');
    expect(await js(page, 'document.activeElement?.getAttribute("aria-expanded")')).toBe('false');
  });

  it('shows what was written in the live editor as a revision of live editing', async () => {
    const doc = await createDocument(stack, owner, { workspaceId, title: 'Live', content: [block('l1', 'Start.')] });
    const page = await openAs(editor, doc.id);
    await page.locator(EDITOR).click();
    await page.keyboard.down('Control');
    await page.keyboard.press('End');
    await page.keyboard.up('Control');
    await page.keyboard.type(' Typed live.');
    await eventually(async () => expect((await stored(doc.id)).content).toContain('Typed live.'), {
      timeoutMs: 20_000,
    });

    await page.locator(HISTORY_BUTTON).click();
    await page.locator(PANEL).wait();
    await eventually(async () => expect((await entryTexts(page))[0]).toContain('Live editing by Ben Editor'));
    await page.locator(`${ENTRY}:nth-child(2) .revision-toggle`).click();
    await eventually(async () =>
      expect(
        await js(page, `[...document.querySelectorAll('.revision-body ins')].map((e) => e.textContent).join('')`),
      ).toContain('Typed live.'),
    );
  });

  it('restores an older version after confirming, and the open editor shows its text', async () => {
    const doc = await twoVersions('Restorable');
    const page = await openAs(editor, doc.id);
    await eventually(async () => expect(await textOf(page, EDITOR)).toContain('The second draft, longer.'), {
      timeoutMs: 20_000,
    });
    await openHistory(page, 2);
    await page.locator(`${ENTRY}:nth-child(2) ::-p-aria([name="Restore"][role="button"])`).click();
    const dialog = '::-p-aria([name="Restore this version?"][role="alertdialog"])';
    await page.locator(dialog).wait();
    // Cancel is where focus starts: Enter by mistake changes nothing.
    expect(await activeText(page)).toBe('Cancel');
    // With the dialog open, the one Restore button there is is the dialog's.
    await page.locator('::-p-aria([name="Restore"][role="button"])').click();

    await eventually(async () => expect(await textOf(page, EDITOR)).toContain('The first draft.'), {
      timeoutMs: 20_000,
    });
    expect(await textOf(page, EDITOR)).toContain('A paragraph that goes away.');
    expect(await textOf(page, EDITOR)).not.toContain('The second draft');
    expect((await stored(doc.id)).content).toContain('The first draft.');
    await eventually(async () => expect((await entryTexts(page))[0]).toContain('Restored by Ben Editor'));
    expect(await textOf(page, '.revision-list-area > [role="status"]')).toContain('is restored');
    expect(await has(page, dialog)).toBe(false);
  });

  it('names the current version for an editor; a viewer reads the history without Restore or naming', async () => {
    const doc = await twoVersions('Named');
    const page = await openAs(editor, doc.id);
    await openHistory(page, 2);
    await page.locator('::-p-aria([name="Version name"][role="textbox"])').fill('Sent for review');
    await page.keyboard.press('Enter');
    await eventually(async () => expect((await entryTexts(page))[0]).toContain('Sent for review'));
    expect(await textOf(page, '.name-version [role="status"]')).toContain('“Sent for review”');
    expect((await revisions(doc.id))[0].name).toBe('Sent for review');
    // The current version has its Restore too, disabled: there is nothing to bring back.
    const currentRestore = await page.$(`${ENTRY}:nth-child(1) ::-p-aria([name="Restore"][role="button"])`);
    expect(await currentRestore?.evaluate((button) => (button as unknown as { disabled: boolean }).disabled)).toBe(
      true,
    );
    expect(await seriousAxeViolations(page)).toEqual([]);

    const reader = await openAs(viewer, doc.id);
    // Naming kept the current state under that name: no new entry.
    await openHistory(reader, 2);
    expect((await entryTexts(reader))[0]).toContain('Sent for review');
    expect(await has(reader, '.history-panel ::-p-aria([name="Restore"][role="button"])')).toBe(false);
    expect(await has(reader, '.history-panel ::-p-aria([name="Delete"][role="button"])')).toBe(false);
    expect(await has(reader, '::-p-aria([name="Version name"][role="textbox"])')).toBe(false);
    // Reading a preview is for everyone.
    await reader.locator(`${ENTRY}:nth-child(2) .revision-toggle`).click();
    await eventually(async () => expect(await textOf(reader, '.revision-preview .revision-body')).toContain('first'));
    expect(await seriousAxeViolations(reader)).toEqual([]);
  });

  it('lets an admin delete an older version, and pages through a long history with Load more', async () => {
    const doc = await createDocument(stack, owner, { workspaceId, title: 'Long', content: [block('x', 'Edit 0')] });
    for (let i = 1; i <= 21; i += 1) {
      expect((await api('PUT', `/documents/${doc.id}`, owner, { content: [block('x', `Edit ${i}`)] })).status).toBe(
        200,
      );
    }
    const page = await openAs(owner, doc.id);
    await openHistory(page, 20);
    await page.locator('::-p-aria([name="Load more"][role="button"])').click();
    await eventually(async () => expect((await entryTexts(page)).length).toBe(22));
    expect(await has(page, '::-p-aria([name="Load more"][role="button"])')).toBe(false);

    const before = (await revisions(doc.id)).length;
    await page.locator(`${ENTRY}:nth-child(22) ::-p-aria([name="Delete"][role="button"])`).click();
    await page.locator('::-p-aria([name="Delete this version?"][role="alertdialog"])').wait();
    await page.locator('::-p-aria([name="Delete"][role="button"])').click();
    await eventually(async () => expect((await entryTexts(page)).length).toBe(21));
    expect((await revisions(doc.id)).length).toBe(before - 1);
    // The editor (not an admin) has Restore but no Delete.
    const other = await openAs(editor, doc.id);
    await openHistory(other, 20);
    expect(await has(other, `${ENTRY}:nth-child(2) ::-p-aria([name="Restore"][role="button"])`)).toBe(true);
    expect(await has(other, '.history-panel ::-p-aria([name="Delete"][role="button"])')).toBe(false);
  });
});
