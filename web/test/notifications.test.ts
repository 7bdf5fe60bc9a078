import {
  createDocument,
  createWorkspace,
  eventually,
  paragraphWithId,
  type SignedInUser,
  type Stack,
  signInNew,
} from '@wiki/testing';
import type { HTTPRequest, Page } from 'puppeteer-core';
import { seriousAxeViolations } from './helpers/browser.js';
import { accessibleNames, focused, tabTo } from './helpers/keyboard.js';
import { useTeamFixture } from './helpers/team.js';

const bell = (unread: number) => `::-p-aria([name="Notifications, ${unread} unread"][role="button"])`;
const PANEL = '::-p-aria([name="Notifications"][role="dialog"])';
const button = (name: string) => `::-p-aria([name="${name}"][role="button"])`;
const ITEMS = '.notification-list > li';

// Notifications in the browser (issue 28 point 3; ARCHITECTURE 5.6 and 5.17) against the real
// gateway, workspace, document, comment and notification services: the bell's count and the list
// follow the SSE stream without a reload, and the stream resumes after the connection drops.
describe('notifications: the bell, the panel and the live stream', () => {
  const team = useTeamFixture({
    services: ['workspace', 'document', 'comment', 'notification'],
    // Ben's workspace: Ada's invitation to it is answered (actioned, not unread), so she starts at 0.
    people: ['Ben Writer', ['Ada Reader', 'EDITOR']],
    env: { NOTIFICATION_STREAMS_PER_USER: '1' },
  });
  let stack: Stack;
  let ben: SignedInUser;
  let ada: SignedInUser;
  let workspaceId: string;
  beforeAll(async () => {
    ({ stack, workspaceId } = team);
    [ben, ada] = team.people;
    await eventually(async () => {
      expect((await api('GET', '/notifications', ada)).body.data.totalElements).toBe(1);
      expect((await api('GET', '/notifications/count', ada)).body.data.unreadCount).toBe(0);
    });
  });

  const api = (method: string, path: string, as: SignedInUser, body?: unknown) => team.api(method, path, as, body);
  /**
   * Ben writes a document titled `title` and starts a thread on it that mentions Ada (the mention
   * format of ARCHITECTURE 5.6); the notification names the document, which tells them apart here.
   */
  const mentionAda = async (title: string): Promise<{ documentId: string; threadId: string }> => {
    const document = await createDocument(stack, ben, {
      workspaceId,
      title,
      content: [paragraphWithId('p1', 'Hello')],
    });
    const res = await api('POST', `/comments/documents/${document.id}/threads`, ben, {
      anchor: { blockId: 'p1', startOffset: 0, endOffset: 5, selectedText: 'Hello' },
      comment: { content: `@[${ada.name}](${ada.id}) have a look` },
    });
    expect(res.status).toBe(201);
    return { documentId: document.id, threadId: res.body.data.id };
  };
  const unreadOf = async (user: SignedInUser) =>
    (await api('GET', '/notifications/count', user)).body.data.unreadCount as number;

  async function openAsAda(): Promise<Page> {
    const page = await team.open(`/w/${workspaceId}`, ada);
    page.setDefaultTimeout(10_000);
    await page.locator(bell(await unreadOf(ada))).wait();
    return page;
  }
  const itemTexts = (page: Page) =>
    page.evaluate(`[...document.querySelectorAll(${JSON.stringify(ITEMS)})].map((e) => e.textContent)`) as Promise<
      string[]
    >;

  it('a mention shows on the bell live, opens from the keyboard and leads to the document at its thread', async () => {
    const page = await openAsAda();
    const before = await unreadOf(ada);
    const { documentId, threadId } = await mentionAda('Field notes');
    // No reload: the count comes over the stream.
    await page
      .locator(bell(before + 1))
      .setTimeout(5_000)
      .wait();
    expect(
      await page.$eval('.notifications-badge', (e) => (e as unknown as { textContent: string | null }).textContent),
    ).toBe(String(before + 1));

    await tabTo(page, `Notifications, ${before + 1} unread`);
    await page.keyboard.press('Enter');
    await page.locator(PANEL).wait();
    await eventually(async () => expect((await itemTexts(page)).join()).toContain('Field notes'));
    expect((await itemTexts(page))[0]).toContain('Ben Writer');
    expect((await itemTexts(page))[0]).toContain('Field notes');
    expect(await seriousAxeViolations(page)).toEqual([]);

    // Escape closes the panel and gives the focus back to the bell.
    await page.keyboard.press('Escape');
    await eventually(async () => expect((await focused(page)).name).toBe(`Notifications, ${before + 1} unread`));
    expect(await page.$('dialog.notifications-panel[open]')).toBeNull();

    await page.keyboard.press('Enter');
    await page.locator(PANEL).wait();
    const link = await page.waitForSelector(`.notification-list a[href$="#thread-${threadId}"]`);
    await link?.click();
    await page.waitForFunction(
      `location.pathname === ${JSON.stringify(`/w/${workspaceId}/d/${documentId}`)} && location.hash === "#thread-${threadId}"`,
    );
    await page.locator(bell(before)).setTimeout(5_000).wait();
    // The document opens with its Comments panel at that thread.
    await page.locator('::-p-aria([name="Comments"][role="complementary"])').setTimeout(5_000).wait();
  });

  it('"Mark all as read" clears the count; the type filter shows one kind', async () => {
    await mentionAda('first of two');
    await mentionAda('Second of two');
    await eventually(async () => expect(await unreadOf(ada)).toBeGreaterThanOrEqual(2));
    const page = await openAsAda();
    await page.locator(bell(await unreadOf(ada))).click();
    await page.locator(PANEL).wait();
    await eventually(async () => expect((await itemTexts(page)).join()).toContain('Second of two'));

    await page.select('.notifications-toolbar select', 'WORKSPACE_INVITATION');
    await eventually(async () => {
      const texts = await itemTexts(page);
      expect(texts).toHaveLength(1);
      expect(texts[0]).not.toContain('Second of two');
    });
    await page.select('.notifications-toolbar select', '');

    await page.locator(button('Mark all as read')).click();
    await eventually(async () => expect(await page.$$('.notification.unread')).toHaveLength(0));
    expect(await unreadOf(ada)).toBe(0);
    // The modal panel makes the page behind it inert: the bell is seen again once it is closed.
    await page.keyboard.press('Escape');
    await page.locator(bell(0)).setTimeout(5_000).wait();
  });

  it('dismiss and delete take a notification out of the list', async () => {
    await mentionAda('to be dismissed');
    await mentionAda('to be deleted');
    await eventually(async () => expect(await unreadOf(ada)).toBe(2));
    const page = await openAsAda();
    await page.locator(bell(2)).click();
    await eventually(async () => expect((await itemTexts(page)).join()).toContain('to be deleted'));
    expect(await accessibleNames(page, 'button')).toContain('Delete: You were mentioned in “to be dismissed”');
    await page.locator(button('Dismiss: You were mentioned in “to be dismissed”')).click();
    await eventually(async () => expect((await itemTexts(page)).join()).not.toContain('to be dismissed'));
    await page.locator(button('Delete: You were mentioned in “to be deleted”')).click();
    await eventually(async () => expect((await itemTexts(page)).join()).not.toContain('to be deleted'));
    await page.keyboard.press('Escape');
    await page.locator(bell(0)).setTimeout(5_000).wait();
    const left = (await api('GET', '/notifications', ada)).body.data.content.map(
      (n: { document: { title: string } | null }) => n.document?.title,
    );
    expect(left).not.toContain('to be dismissed');
    expect(left).not.toContain('to be deleted');
  });

  it('an invitation is accepted in place and makes Ada a member', async () => {
    const cam = await signInNew(stack, 'Cam Gardener');
    const garden = await createWorkspace(stack, cam, { name: 'Garden club' });
    const page = await openAsAda();
    const before = await unreadOf(ada);
    const invited = await api('POST', `/workspaces/${garden.id}/members/invite`, cam, {
      email: ada.email,
      role: 'EDITOR',
    });
    expect(invited.status).toBe(201);
    await page
      .locator(bell(before + 1))
      .setTimeout(5_000)
      .click();
    await page.locator(PANEL).wait();
    await page.locator(button('Accept the invitation to Garden club')).click();
    await page.locator('::-p-aria(Open Garden club)').wait();
    const members = (await api('GET', `/workspaces/${garden.id}/members`, cam)).body.data as { userId: string }[];
    expect(members.map((m) => m.userId)).toContain(ada.id);
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('the stream resumes after it was cut, with Last-Event-ID and without duplicates', async () => {
    const page = await openAsAda();
    const streams: HTTPRequest[] = [];
    const ended: HTTPRequest[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/notifications/stream')) streams.push(request);
    });
    page.on('requestfinished', (request) => ended.push(request));
    page.on('requestfailed', (request) => ended.push(request));
    await page.locator(bell(await unreadOf(ada))).click();
    await page.locator(PANEL).wait();
    // A first live notification gives the stream an event id to resume from.
    await mentionAda('Before the cut');
    await eventually(async () => expect((await itemTexts(page)).join()).toContain('Before the cut'));

    // One stream per user on this platform: a newer one (another tab, here the test's own) cuts
    // the page's, which then waits before coming back (it was pushed out, not broken).
    const other = new AbortController();
    const cutter = await fetch(`${stack.gatewayUrl}/api/v1/notifications/stream`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${ada.token}` },
      signal: other.signal,
    });
    expect(cutter.status).toBe(200);
    // The page's stream (opened before these listeners) ends.
    await eventually(async () =>
      expect(ended.filter((r) => r.url().includes('/notifications/stream')).length).toBeGreaterThan(0),
    );
    const seenBefore = streams.length;
    await mentionAda('While cut off');
    // The person comes back to the tab: the stream reopens from the last event it saw.
    await page.evaluate('document.dispatchEvent(new Event("visibilitychange"))');
    await eventually(async () => expect((await itemTexts(page)).join()).toContain('While cut off'));
    other.abort();
    const resumed = streams.slice(seenBefore);
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed[0]?.headers()['last-event-id']).toMatch(/^[0-9]+$/);
    const texts = await itemTexts(page);
    expect(texts.filter((t) => t?.includes('While cut off'))).toHaveLength(1);
    expect(texts.filter((t) => t?.includes('Before the cut'))).toHaveLength(1);
    await page.keyboard.press('Escape');
    await page.locator(bell(await unreadOf(ada))).wait();
  });
});
