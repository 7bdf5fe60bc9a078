import { createDocument, eventually, paragraph, paragraphWithId } from '@wiki/testing';
import type { Page } from 'puppeteer-core';
import { seriousAxeViolations } from './helpers/browser.js';
import { useTeamFixture } from './helpers/team.js';

const TITLE = '::-p-aria([name="Title"][role="textbox"])';
const treeItem = (name: string) => `nav[aria-label="Documents"] [role="treeitem"][aria-label=${JSON.stringify(name)}]`;

/** The names of the tree's rows (tests are type-checked without the DOM's types: strings only). */
const treeNames = (page: Page) =>
  page.evaluate(
    `[...document.querySelectorAll('nav[aria-label="Documents"] [role="treeitem"]')].map((e) => e.getAttribute('aria-label'))`,
  ) as Promise<string[]>;
const titleValue = (page: Page) =>
  page
    .locator(TITLE)
    .map((input) => (input as unknown as { value: string }).value)
    .wait();

// What others change arrives without a reload and without polling (issues 27 and 28): the document
// page hears of it from the collaboration server, the sidebar's tree from the notification stream.
// Nothing here refreshes by itself within the test's waits (comments fall back to a 2-minute re-read).
describe('live updates: others’ renames, new and moved documents reach the title and the tree', () => {
  const team = useTeamFixture({
    services: ['workspace', 'document', 'collab', 'comment', 'notification'],
    people: ['Ada Owner', ['Ben Editor', 'EDITOR']],
  });

  it('a rename typed by Ada shows in Ben’s title field and tree; her new and moved documents in his tree', async () => {
    const [ada, ben] = team.people;
    const { workspaceId } = team;
    const doc = await createDocument(team.stack, ada, { workspaceId, title: 'Plans', content: [paragraph('Soon.')] });
    const other = await createDocument(team.stack, ada, { workspaceId, title: 'Notes' });
    const [pageA, pageB] = await Promise.all([team.openDocument(ada, doc.id), team.openDocument(ben, doc.id)]);
    pageB.setDefaultTimeout(15_000);
    await pageB.waitForSelector(treeItem('Notes'));

    // Ada types a new title; Ben's field and tree follow.
    await pageA.locator(TITLE).click({ count: 3 });
    await pageA.keyboard.type('Plans for spring');
    await eventually(async () => expect(await titleValue(pageB)).toBe('Plans for spring'));
    await pageB.waitForSelector(treeItem('Plans for spring'));

    // A document Ben does not have open: renamed, then a new one, then moved below it.
    expect((await team.api('PUT', `/documents/${other.id}`, ada, { title: 'Meeting notes' })).status).toBe(200);
    await pageB.waitForSelector(treeItem('Meeting notes'));
    const added = await createDocument(team.stack, ada, { workspaceId, title: 'Budget' });
    await pageB.waitForSelector(treeItem('Budget'));
    const moved = await team.api('PUT', `/documents/${added.id}/move`, ada, { parentId: other.id, index: 0 });
    expect(moved.status).toBe(200);
    // The row under its new parent (collapsed): gone from the top level.
    await eventually(async () => expect(await treeNames(pageB)).not.toContain('Budget'));
    expect(await seriousAxeViolations(pageB)).toEqual([]);
  });

  it('each tree row shows its open threads, counted live as others start and resolve them', async () => {
    const [ada, ben] = team.people;
    const { workspaceId } = team;
    const doc = await createDocument(team.stack, ada, {
      workspaceId,
      title: 'Discussed',
      content: [paragraphWithId('p1', 'Hello there')],
    });
    const page = await team.open(`/w/${workspaceId}`, ben);
    page.setDefaultTimeout(15_000);
    await page.waitForSelector(treeItem('Discussed'));
    const startThread = async (text: string) => {
      const res = await team.api('POST', `/comments/documents/${doc.id}/threads`, ada, {
        anchor: { blockId: 'p1', startOffset: 0, endOffset: 5, selectedText: 'Hello' },
        comment: { content: text },
      });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
    const first = await startThread('One');
    await page.waitForSelector(`${treeItem('Discussed')} [role="img"][aria-label="1 open comment"]`);
    await startThread('Two');
    await page.waitForSelector(`${treeItem('Discussed')} [role="img"][aria-label="2 open comments"]`);
    // The row's description is the count; its name stays the title.
    const description = await page.evaluate(
      `document.getElementById(document.querySelector(${JSON.stringify(treeItem('Discussed'))}).getAttribute('aria-describedby'))?.getAttribute('aria-label')`,
    );
    expect(description).toBe('2 open comments');
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect((await team.api('PUT', `/comments/threads/${first}/resolve`, ada)).status).toBe(200);
    await page.waitForSelector(`${treeItem('Discussed')} [role="img"][aria-label="1 open comment"]`);
  });

  // The browser keeps pages it left in its back/forward cache. A page kept there with its stream
  // open held one of the six connections to the server; a few page loads left the next one waiting
  // for most of a minute.
  it('a page left for another ends its stream, and one brought back opens it again', async () => {
    const [ada] = team.people;
    const { workspaceId } = team;
    const streamsOpen = async () => {
      const text = await (await fetch(`${team.stack.metricsUrls.notification}/metrics`)).text();
      const value = /^notification_sse_streams_open(?:\{[^}]*\})? (\d+)$/m.exec(text)?.[1];
      if (value === undefined) throw new Error(`no notification_sse_streams_open in:\n${text}`);
      return Number(value);
    };
    await createDocument(team.stack, ada, { workspaceId, title: 'Left behind' });
    const page = await team.open(`/w/${workspaceId}`, ada);
    page.setDefaultTimeout(15_000);
    await page.waitForSelector(treeItem('Left behind'));
    const before = await streamsOpen();
    expect(before).toBeGreaterThan(0);
    for (const path of ['/settings', '', '/settings'])
      await page.goto(`${team.stack.gatewayUrl}/w/${workspaceId}${path}`, { waitUntil: 'networkidle2' });
    await eventually(async () => expect(await streamsOpen()).toBe(before));

    // Back to the workspace's page (from the cache where the browser kept it): live again.
    await page.goBack({ waitUntil: 'networkidle2' });
    await page.waitForSelector(treeItem('Left behind'));
    await eventually(async () => expect(await streamsOpen()).toBe(before));
    await createDocument(team.stack, ada, { workspaceId, title: 'Back again' });
    await page.waitForSelector(treeItem('Back again'));
    await page.close();
  });
});
