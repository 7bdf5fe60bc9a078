import { createDocument, eventually, paragraph, type SignedInUser, type Stack } from '@wiki/testing';
import type { Page } from 'puppeteer-core';
import { seriousAxeViolations } from './helpers/browser.js';
import { useTeamFixture } from './helpers/team.js';

const SHARE = '::-p-aria([name="Share"][role="button"])';
const DIALOG = '::-p-aria([name="Share"][role="dialog"])';

// Publishing (issue 27, point 7): the Share dialog, and /p/<id> read without signing in.
describe('publishing: the Share dialog and the public page', () => {
  const team = useTeamFixture({
    services: ['workspace', 'document', 'collab'],
    people: ['Pat Publisher', ['Val Viewer', 'VIEWER']],
  });
  let stack: Stack;
  let owner: SignedInUser;
  let viewer: SignedInUser;
  let workspaceId: string;
  beforeAll(() => {
    ({ stack, workspaceId } = team);
    [owner, viewer] = team.people;
  });

  const api = (method: string, path: string, as: SignedInUser | null, body?: unknown) =>
    team.api(method, path, as, body);
  const js = (page: Page, expression: string) => page.evaluate(expression) as Promise<unknown>;
  const textOf = (page: Page, selector: string) =>
    page
      .locator(selector)
      .map((element) => element.textContent ?? '')
      .wait();

  const open = (path: string, user: SignedInUser | null) => team.open(path, user);
  const openDocument = (user: SignedInUser, id: string) => team.openDocument(user, id);

  it('publishes from the Share dialog; the link then shows the document to anyone, and unpublishing hides it', async () => {
    const doc = await createDocument(stack, owner, {
      workspaceId,
      title: 'Release notes',
      icon: '🚀',
      content: [paragraph('Version two is out.')],
    });
    const page = await openDocument(owner, doc.id);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // Keyboard: focus Share, Enter opens the dialog.
    await page.locator(SHARE).wait();
    await page.focus('.share-button');
    await page.keyboard.press('Enter');
    await page.locator(DIALOG).wait();
    expect(await textOf(page, DIALOG)).toContain('Not published');
    await page.locator('::-p-aria([name="Publish"][role="button"])').click();
    await page.locator('::-p-aria([name="Unpublish"][role="button"])').wait();
    expect(await textOf(page, DIALOG)).toContain('anyone with the link');
    const link = (await js(page, `document.querySelector('dialog input[readonly]').value`)) as string;
    expect(link).toBe(`${stack.gatewayUrl}/p/${doc.id}`);
    expect((await api('GET', `/documents/${doc.id}`, owner)).body.data.isPublished).toBe(true);
    await page.locator('::-p-aria([name="Copy link"][role="button"])').click();
    await eventually(async () => expect(await textOf(page, 'dialog [role="status"]')).not.toBe(''));
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await eventually(async () => expect(await js(page, `document.querySelector('dialog').open`)).toBe(false));

    // A fresh browser, nobody signed in.
    const reader = await open(`/p/${doc.id}`, null);
    await reader.locator('::-p-aria([name="Release notes"][role="heading"])').wait();
    await eventually(async () => expect(await textOf(reader, 'main')).toContain('Version two is out.'));
    expect(await reader.title()).toBe('Release notes');
    expect(await js(reader, `document.querySelector('.bn-editor').getAttribute('contenteditable')`)).toBe('false');
    expect(await seriousAxeViolations(reader)).toEqual([]);

    await page.locator(SHARE).click();
    await page.locator('::-p-aria([name="Unpublish"][role="button"])').click();
    await page.locator('::-p-aria([name="Publish"][role="button"])').wait();
    expect((await api('GET', `/documents/${doc.id}`, owner)).body.data.isPublished).toBe(false);
    await reader.reload();
    await reader.locator('::-p-aria([name="Not found"][role="heading"])').wait();
  });

  it('lists published children as links and the published ancestors as breadcrumbs', async () => {
    const parent = await createDocument(stack, owner, { workspaceId, title: 'Guide', content: [paragraph('Top.')] });
    const child = await createDocument(stack, owner, {
      workspaceId,
      parentId: parent.id,
      title: 'Chapter one',
      content: [paragraph('Inside the guide.')],
    });
    await createDocument(stack, owner, { workspaceId, parentId: parent.id, title: 'Draft chapter' });
    for (const id of [parent.id, child.id])
      expect((await api('POST', `/documents/${id}/publish`, owner)).status).toBe(200);

    const reader = await open(`/p/${parent.id}`, null);
    await reader.locator('::-p-aria([name="Guide"][role="heading"])').wait();
    const inside = await textOf(reader, '::-p-aria([name="Pages inside"][role="navigation"])');
    expect(inside).toContain('Chapter one');
    expect(inside).not.toContain('Draft chapter');
    await reader.locator('::-p-aria([name="Chapter one"][role="link"])').click();
    await reader.locator('::-p-aria([name="Chapter one"][role="heading"])').wait();
    expect(await textOf(reader, '::-p-aria([name="Breadcrumbs"][role="navigation"])')).toContain('Guide');
    await eventually(async () => expect(await reader.title()).toBe('Chapter one'));
    expect(await seriousAxeViolations(reader)).toEqual([]);
  });

  it('renders content as text: markup and script links in it stay inert', async () => {
    const doc = await createDocument(stack, owner, {
      workspaceId,
      title: '<img src=x onerror="window.pwned=1">',
      content: [
        paragraph('<script>window.pwned=2</script><b>not bold</b>'),
        {
          type: 'paragraph',
          content: [
            {
              type: 'link',
              href: 'javascript:window.pwned=3',
              content: [{ type: 'text', text: 'a trap', styles: {} }],
            },
          ],
        },
      ],
    });
    expect((await api('POST', `/documents/${doc.id}/publish`, owner)).status).toBe(200);
    const reader = await open(`/p/${doc.id}`, null);
    await eventually(async () => expect(await textOf(reader, 'main')).toContain('<b>not bold</b>'));
    expect(await textOf(reader, 'h1')).toBe('<img src=x onerror="window.pwned=1">');
    await eventually(async () => expect(await textOf(reader, 'main')).toContain('a trap'));
    expect(await js(reader, `document.querySelectorAll('main img, main script, main b').length`)).toBe(0);
    expect(
      await js(
        reader,
        `[...document.querySelectorAll('a')].filter((a) => /^javascript:/i.test(a.getAttribute('href') ?? '')).length`,
      ),
    ).toBe(0);
    expect(await js(reader, 'window.pwned ?? null')).toBeNull();
  });

  it('shows a VIEWER the state and the link, but no way to publish', async () => {
    const doc = await createDocument(stack, owner, {
      workspaceId,
      title: 'Shared already',
      content: [paragraph('Hi.')],
    });
    expect((await api('POST', `/documents/${doc.id}/publish`, owner)).status).toBe(200);
    const page = await openDocument(viewer, doc.id);
    await page.locator(SHARE).click();
    await page.locator(DIALOG).wait();
    expect(await textOf(page, DIALOG)).toContain('Only editors can publish or unpublish');
    expect(await page.$('::-p-aria([name="Unpublish"][role="button"])')).toBeNull();
    expect(await page.$('::-p-aria([name="Publish"][role="button"])')).toBeNull();
    await page.locator('::-p-aria([name="Public link"][role="textbox"])').wait();
  });

  it('answers a document that was never published with the not-found page', async () => {
    const doc = await createDocument(stack, owner, { workspaceId, title: 'Secret', content: [paragraph('Hidden.')] });
    const reader = await open(`/p/${doc.id}`, null);
    await reader.locator('::-p-aria([name="Not found"][role="heading"])').wait();
    expect(await textOf(reader, 'main')).not.toContain('Hidden.');
    expect(await seriousAxeViolations(reader)).toEqual([]);
  });
});
