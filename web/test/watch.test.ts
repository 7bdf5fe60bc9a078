import { createDocument, eventually, paragraph, type SignedInUser, type Stack } from '@wiki/testing';
import type { Page } from 'puppeteer-core';
import { seriousAxeViolations } from './helpers/browser.js';
import { useTeamFixture } from './helpers/team.js';

const WATCH = '::-p-aria([name="Watch"][role="button"])';

// The Watch toggle of the document page (issue 31, watching) against the real gateway, document
// and notification services.
describe('the Watch button of the document page', () => {
  const team = useTeamFixture({
    services: ['workspace', 'document', 'notification'],
    people: ['Ada Owner', ['Vic Viewer', 'VIEWER']],
  });
  let stack: Stack;
  let owner: SignedInUser;
  let viewer: SignedInUser;
  let workspaceId: string;
  beforeAll(() => {
    ({ stack, workspaceId } = team);
    [owner, viewer] = team.people;
  });

  const watchingAsApi = async (as: SignedInUser, documentId: string) =>
    (await team.api('GET', `/documents/${documentId}/watch`, as)).body.data.watching as boolean;
  /** The button's aria-pressed once it is enabled (the state is known). */
  const pressed = (page: Page) =>
    eventually(async () => {
      const [disabled, value] = await page
        .locator(WATCH)
        .map((button) => [button.hasAttribute('disabled'), button.getAttribute('aria-pressed')] as const)
        .wait();
      expect(disabled).toBe(false);
      return value;
    });

  it('shows whether the person watches and toggles it, remembered across a reload; axe finds nothing serious', async () => {
    const doc = await createDocument(stack, owner, { workspaceId, title: 'Watched page', content: [paragraph('x')] });
    // The creator watches automatically, once the notification service has seen the document.
    await eventually(async () => expect(await watchingAsApi(owner, doc.id)).toBe(true));
    const ownerPage = await team.openDocument(owner, doc.id);
    expect(await pressed(ownerPage)).toBe('true');

    const page = await team.openDocument(viewer, doc.id);
    expect(await pressed(page)).toBe('false');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.locator(WATCH).click();
    await eventually(async () => expect(await pressed(page)).toBe('true'));
    expect(await watchingAsApi(viewer, doc.id)).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.reload();
    expect(await pressed(page)).toBe('true');
    await page.locator(WATCH).click();
    await eventually(async () => expect(await pressed(page)).toBe('false'));
    expect(await watchingAsApi(viewer, doc.id)).toBe(false);
  });
});
