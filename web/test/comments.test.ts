import { createDocument, eventually, paragraphWithId, type SignedInUser, type Stack } from '@wiki/testing';
import type { Page } from 'puppeteer-core';
import { seriousAxeViolations } from './helpers/browser.js';
import { useTeamFixture } from './helpers/team.js';

const TITLE = '::-p-aria([name="Title"][role="textbox"])';
const EDITOR = '::-p-aria([name="Document content"][role="textbox"])';
const COMMENTS_BUTTON = '::-p-aria([name="Comments"][role="button"])';
const PANEL = '::-p-aria([name="Comments"][role="complementary"])';
const COMMENT_ACTION = '::-p-aria([name="Comment"][role="button"])';
const THREAD = '.comments-panel .comment-thread';
const button = (name: string) => `::-p-aria([name="${name}"][role="button"])`;

const FIRST = 'The quick brown fox jumps over the lazy dog.';
const SECOND = 'Pack my box with five dozen liquor jugs.';

// Comments and mentions in the browser (issue 28, points 1 and 2; ARCHITECTURE 5.6 and 5.17)
// against the real gateway, workspace, document, collab and comment services.
describe('comments: threads on selected text, replies with mentions, resolve, filter, roles', () => {
  const team = useTeamFixture({
    services: ['workspace', 'document', 'collab', 'comment'],
    people: ['Ada Owner', ['Ben Editor', 'EDITOR'], ['Cam Commenter', 'COMMENTER'], ['Vic Viewer', 'VIEWER']],
  });
  let stack: Stack;
  let ada: SignedInUser;
  let ben: SignedInUser;
  let cam: SignedInUser;
  let vic: SignedInUser;
  let workspaceId: string;
  beforeAll(() => {
    ({ stack, workspaceId } = team);
    [ada, ben, cam, vic] = team.people;
  });

  const api = (method: string, path: string, as: SignedInUser, body?: unknown) => team.api(method, path, as, body);
  const threadsOf = async (documentId: string) =>
    (await api('GET', `/comments/documents/${documentId}/threads`, ada)).body.data;
  const newDocument = (title: string) =>
    createDocument(stack, ada, {
      workspaceId,
      title,
      content: [paragraphWithId('p1', FIRST), paragraphWithId('p2', SECOND)],
    });
  /** A thread on "brown fox" started through the API. */
  const threadOnFox = async (documentId: string, as: SignedInUser, content: string) => {
    const res = await api('POST', `/comments/documents/${documentId}/threads`, as, {
      anchor: { blockId: 'p1', startOffset: 10, endOffset: 19, selectedText: 'brown fox' },
      comment: { content },
    });
    expect(res.status).toBe(201);
    return res.body.data;
  };

  async function openAs(user: SignedInUser, documentId: string): Promise<Page> {
    const page = await team.open(`/w/${workspaceId}/d/${documentId}`, user);
    await page.locator(TITLE).wait();
    await eventually(async () => expect(await textOf(page, EDITOR)).toContain(SECOND), { timeoutMs: 20_000 });
    return page;
  }

  /** Evaluates `expression` in the page (a string: these tests are type-checked without the DOM's types). */
  const js = <T>(page: Page, expression: string) => page.evaluate(expression) as Promise<T>;
  const textOf = (page: Page, selector: string) =>
    page
      .locator(selector)
      .map((element) => element.textContent ?? '')
      .wait();
  const has = async (page: Page, selector: string) => (await page.$(selector)) !== null;
  const activeText = (page: Page) => js<string>(page, 'document.activeElement?.textContent ?? ""');
  const threadTexts = (page: Page) =>
    js<string[]>(page, `[...document.querySelectorAll(${JSON.stringify(THREAD)})].map((e) => e.textContent)`);

  /** Selects `text` inside the editor the way a drag of the mouse over it would. */
  const select = (page: Page, text: string) =>
    js<void>(
      page,
      `(() => {
        const walker = document.createTreeWalker(document.querySelector('.editor-area'), NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const at = node.data.indexOf(${JSON.stringify(text)});
          if (at < 0) continue;
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + ${text.length});
          getSelection().removeAllRanges();
          getSelection().addRange(range);
          return;
        }
        throw new Error('not in the editor');
      })()`,
    );
  /** The texts the editor marks as commented on (CSS Custom Highlight API), by highlight name. */
  const highlighted = (page: Page, name: string) =>
    js<string[]>(page, `[...(CSS.highlights.get(${JSON.stringify(name)}) ?? [])].map((r) => r.toString())`);

  /** Presses Tab until the focused element's text is `text` (at most `limit` times): reachability by keyboard. */
  async function tabTo(page: Page, text: string, limit = 12) {
    for (let i = 0; i < limit; i += 1) {
      if ((await activeText(page)) === text) return;
      await page.keyboard.press('Tab');
    }
    expect(await activeText(page)).toBe(text);
  }

  it('A comments on selected text; B sees it live and replies mentioning A by keyboard; A sees the mention', async () => {
    const doc = await newDocument('Two people');
    const [pageA, pageB] = await Promise.all([openAs(ada, doc.id), openAs(ben, doc.id)]);

    // B has the panel open before anything is said.
    await pageB.locator(COMMENTS_BUTTON).click();
    await pageB.locator(PANEL).wait();
    expect(await textOf(pageB, '.comments-panel')).toContain('No open threads.');

    // A selects "brown fox": the Comment action appears under it and opens the panel with a box.
    await select(pageA, 'brown fox');
    await pageA.locator(COMMENT_ACTION).click();
    await pageA.locator(PANEL).wait();
    expect(await textOf(pageA, '.new-thread blockquote')).toBe('brown fox');
    expect(await js(pageA, 'document.activeElement?.tagName')).toBe('TEXTAREA');
    await pageA.keyboard.type('Is this the right animal?');
    await pageA.locator(button('Add comment')).click();
    await eventually(async () => expect(await threadTexts(pageA)).toHaveLength(1));
    expect((await threadTexts(pageA))[0]).toContain('Is this the right animal?');

    const [stored] = await threadsOf(doc.id);
    expect(stored.anchor).toEqual({ blockId: 'p1', startOffset: 10, endOffset: 19, selectedText: 'brown fox' });
    // The new thread is the one in focus: its text is marked in the editor as the active one.
    await eventually(async () => expect(await highlighted(pageA, 'comment-anchor-active')).toEqual(['brown fox']));
    await eventually(async () => expect(await textOf(pageA, `${COMMENTS_BUTTON} .comment-count`)).toBe('1'));

    // B sees it without doing anything (the collaboration server's announcement; the panel's own
    // re-read comes after two minutes), marked in B's editor too.
    await eventually(async () => expect(await threadTexts(pageB)).toHaveLength(1));
    expect((await threadTexts(pageB))[0]).toContain('Ada Owner');
    await eventually(async () => expect(await highlighted(pageB, 'comment-anchor')).toEqual(['brown fox']));

    // B replies by keyboard: Tab from Refresh reaches Reply, Enter opens the box.
    await pageB.focus('.comments-heading button');
    await tabTo(pageB, 'Reply');
    await pageB.keyboard.press('Enter');
    expect(await js(pageB, 'document.activeElement?.labels?.[0]?.textContent')).toBe('Your reply');
    await pageB.keyboard.type('@Ada');
    await pageB.locator('::-p-aria([name="People to mention"][role="listbox"])').wait();
    await eventually(async () =>
      expect(await textOf(pageB, '[role="option"][aria-selected="true"]')).toContain('Ada Owner'),
    );
    // The list and the box are accessible as they are, open.
    expect(await seriousAxeViolations(pageB)).toEqual([]);
    await pageB.keyboard.press('Enter');
    expect(await has(pageB, '.mention-list')).toBe(false);
    await pageB.keyboard.type('please check.');
    expect(await js(pageB, 'document.activeElement?.value')).toBe('@Ada Owner please check.');
    await pageB.keyboard.down('Control');
    await pageB.keyboard.press('Enter');
    await pageB.keyboard.up('Control');

    // The content holds the mention format of ARCHITECTURE 5.6; the panel shows a name.
    await eventually(async () => expect((await threadsOf(doc.id))[0].comments).toHaveLength(2));
    const reply = (await threadsOf(doc.id))[0].comments[1];
    expect(reply.content).toBe(`@[Ada Owner](${ada.id}) please check.`);
    await eventually(async () => expect(await textOf(pageB, `${THREAD} .mention`)).toBe('@Ada Owner'));
    expect((await threadTexts(pageB))[0]).not.toContain(ada.id);
    // Focus went back to Reply once the reply was sent.
    expect(await activeText(pageB)).toBe('Reply');

    // A sees B's reply with the mention, live too.
    await eventually(async () => expect(await textOf(pageA, `${THREAD} .mention`)).toBe('@Ada Owner'));
    expect((await threadTexts(pageA))[0]).toContain('please check.');
    expect(await seriousAxeViolations(pageA)).toEqual([]);
  });

  it('resolves and reopens, filters Open/Resolved/All, and goes from a mark to its thread and back', async () => {
    const doc = await newDocument('Resolving');
    const thread = await threadOnFox(doc.id, ada, 'Fox or wolf?');
    const page = await openAs(ben, doc.id);
    await eventually(async () => expect(await highlighted(page, 'comment-anchor')).toEqual(['brown fox']));

    // A click on the marked text opens the panel at its thread, in focus.
    const box = await page.evaluate(
      `(() => { const r = CSS.highlights.get('comment-anchor').values().next().value.getBoundingClientRect();
        return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`,
    );
    const { x, y } = box as { x: number; y: number };
    await page.mouse.click(x, y);
    await page.locator(PANEL).wait();
    await eventually(async () => expect(await js(page, 'document.activeElement?.dataset?.threadId')).toBe(thread.id));
    expect(await highlighted(page, 'comment-anchor-active')).toEqual(['brown fox']);
    await page.keyboard.press('Escape');
    await eventually(async () => expect(await has(page, PANEL)).toBe(false));
    expect(await activeText(page)).toContain('Comments');

    // Open it again from the button: no thread is singled out now.
    await page.keyboard.press('Enter');
    await page.locator(PANEL).wait();
    await page.locator(`${THREAD} ${button('Resolve')}`).click();
    await eventually(async () => expect(await textOf(page, '.comments-panel')).toContain('No open threads.'));
    expect((await threadsOf(doc.id))[0].status).toBe('resolved');
    await eventually(async () => expect(await highlighted(page, 'comment-anchor')).toEqual([]));
    await eventually(async () => expect(await textOf(page, `${COMMENTS_BUTTON} .comment-count`)).toBe('0'));

    // The filter is a group of radio buttons: arrow keys move from Open to Resolved.
    await page.focus('.thread-filter input[value="open"]');
    await page.keyboard.press('ArrowRight');
    await eventually(async () => expect(await threadTexts(page)).toHaveLength(1));
    expect((await threadTexts(page))[0]).toContain('Resolved by Ben Editor');
    await page.locator(`${THREAD} ${button('Reopen')}`).click();
    await eventually(async () => expect(await textOf(page, '.comments-panel')).toContain('No resolved threads.'));
    expect((await threadsOf(doc.id))[0].status).toBe('open');
    await page.locator('::-p-aria([name="All"][role="radio"])').click();
    await eventually(async () => expect(await threadTexts(page)).toHaveLength(1));

    // Show in document puts the caret at the thread's text.
    await page.locator(`${THREAD} ${button('Show in document')}`).click();
    await eventually(async () =>
      expect(await js(page, 'getSelection().anchorNode?.parentElement?.closest("[data-id]")?.dataset.id')).toBe('p1'),
    );
    expect(await js(page, 'getSelection().anchorOffset')).toBe(10);
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('edits and deletes one’s own comments after confirming; others’ comments have no Edit', async () => {
    const doc = await newDocument('Editing');
    const thread = await threadOnFox(doc.id, ada, 'First thought.');
    const answer = await api('POST', `/comments/threads/${thread.id}/comments`, ben, { content: 'Second thought.' });
    expect(answer.status).toBe(201);
    const page = await openAs(ben, doc.id);
    await page.locator(COMMENTS_BUTTON).click();
    await eventually(async () => expect(await page.$$(`${THREAD} .comment-entry`)).toHaveLength(2));

    // Ben's own comment has Edit and Delete; Ada's has neither (Ben is no admin).
    const actionsOf = (n: number) =>
      js<string[]>(
        page,
        `[...document.querySelectorAll('.comment-entry:nth-child(${n}) .comment-actions button')].map((b) => b.textContent)`,
      );
    expect(await actionsOf(1)).toEqual([]);
    expect(await actionsOf(2)).toEqual(['Edit', 'Delete']);

    await page.locator(`.comment-entry:nth-child(2) ${button('Edit')}`).click();
    const editBox = '::-p-aria([name="Edit comment"][role="textbox"])';
    await page.locator(editBox).wait();
    expect(await js(page, 'document.activeElement?.value')).toBe('Second thought.');
    await page.locator(editBox).fill('Second thought, edited.');
    await page.locator(button('Save')).click();
    await eventually(async () =>
      expect(await textOf(page, '.comment-entry:nth-child(2) .comment-content')).toBe('Second thought, edited.'),
    );
    expect(await textOf(page, '.comment-entry:nth-child(2)')).toContain('(edited)');
    await eventually(async () => expect(await activeText(page)).toBe('Edit'));
    const stored = (await threadsOf(doc.id))[0].comments[1];
    expect(stored).toMatchObject({ content: 'Second thought, edited.', isEdited: true });

    await page.locator(`.comment-entry:nth-child(2) ${button('Delete')}`).click();
    await page.locator('::-p-aria([name="Delete this comment?"][role="alertdialog"])').wait();
    expect(await activeText(page)).toBe('Cancel');
    await page.locator(button('Delete')).click();
    await eventually(async () => expect(await page.$$(`${THREAD} .comment-entry`)).toHaveLength(1));
    expect((await threadsOf(doc.id))[0].comments).toHaveLength(1);
    // Said once the page's own re-read is done, which may end after the one the announcement started.
    await eventually(async () =>
      expect(await textOf(page, '.comments-panel > [role="status"]')).toBe('The comment is deleted.'),
    );
  });

  it('a COMMENTER comments on text of the read-only editor with Ctrl+Alt+M; a VIEWER only reads', async () => {
    const doc = await newDocument('Roles');
    await threadOnFox(doc.id, ada, 'Already here.');
    const commenter = await openAs(cam, doc.id);
    expect(await js(commenter, `document.querySelector('.editor-area [contenteditable]')?.contentEditable`)).toBe(
      'false',
    );
    await select(commenter, 'five dozen');
    await commenter.locator(COMMENT_ACTION).wait();
    await commenter.keyboard.down('Control');
    await commenter.keyboard.down('Alt');
    await commenter.keyboard.press('KeyM');
    await commenter.keyboard.up('Alt');
    await commenter.keyboard.up('Control');
    await commenter.locator(PANEL).wait();
    await commenter.keyboard.type('Six dozen?');
    await commenter.locator(button('Add comment')).click();
    await eventually(async () => expect(await threadsOf(doc.id)).toHaveLength(2));
    const created = (await threadsOf(doc.id))[1];
    expect(created.anchor).toEqual({ blockId: 'p2', startOffset: 17, endOffset: 27, selectedText: 'five dozen' });
    expect(created.createdBy.name).toBe('Cam Commenter');

    const reader = await openAs(vic, doc.id);
    await reader.locator(COMMENTS_BUTTON).click();
    await reader.locator(PANEL).wait();
    await eventually(async () => expect(await threadTexts(reader)).toHaveLength(2));
    expect(await textOf(reader, '.comments-panel')).toContain('Your role (viewer) lets you read comments');
    for (const name of ['Reply', 'Resolve', 'Edit', 'Delete', 'Delete thread']) {
      expect(await has(reader, `.comments-panel ${button(name)}`)).toBe(false);
    }
    expect(await has(reader, `.comments-panel ${button('Show in document')}`)).toBe(true);
    // Selecting text offers no Comment action to a viewer.
    await select(reader, 'lazy dog');
    expect(await has(reader, COMMENT_ACTION)).toBe(false);
    expect(await seriousAxeViolations(reader)).toEqual([]);
  });
});
