// `npm run screenshot`: the web app's main pages as a person sees them, in docs/screenshots/<name>.png
// (1280×800) and docs/screenshot.png (the README's first picture). Starts the platform in this
// process on free ports and throw-away databases (as the browser tests do), fills a sample workspace
// through the API and takes each picture in Chromium: the dev sign-in form (a second platform with
// AUTH_PROVIDER=dev), the workspace with its tree, a document two people edit, search, the Share
// dialog, the published page, a comment thread, the history, the notifications and the members.
// Needs the build (`npm run build`) and Chromium (CHROMIUM_PATH, default /usr/bin/chromium).
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { addMember } from '@wiki/testing';
import type { Page } from 'puppeteer-core';
import { launchBrowser, signInPage } from '../web/test/helpers/browser.js';
import { startWebPlatform } from '../web/test/helpers/platform.js';

const DOCS = fileURLToPath(new URL('../docs/', import.meta.url));
const SHOTS = `${DOCS}screenshots/`;

const text = (value: string) => [{ type: 'text', text: value, styles: {} }];
let blockCount = 0;
// Ids of their own, so that a comment can be anchored to a block before anyone opened the page.
const block = (type: string, value: string, props: Record<string, unknown> = {}) => ({
  id: `welcome-${++blockCount}`,
  type,
  props,
  content: text(value),
  children: [],
});

const WELCOME = [
  block(
    'paragraph',
    'This handbook is how we work: how we welcome people, how we build and ship, and why we decided what we decided.',
  ),
  block('heading', 'Where to start', { level: 2 }),
  block('bulletListItem', 'Read Onboarding first: your first week, day by day.'),
  block('bulletListItem', 'Engineering holds code review, releases and on-call.'),
  block('bulletListItem', 'Search with Ctrl K from anywhere; everything here is editable together.'),
  block('heading', 'Keeping it alive', { level: 2 }),
  block(
    'paragraph',
    'Found something out of date? Fix it right away: the page saves as you type, and the history keeps every version.',
  ),
];

const TREE: Array<[string, string[]]> = [
  ['Onboarding', ['Your first week', 'Accounts and tools']],
  ['Engineering', ['Code review', 'Releases', 'On-call']],
  ['Decisions', []],
  ['Meeting notes', []],
];

const shoot = async (page: Page, name: string) => {
  // No focus ring or caret left over from the steps that led here, unless the picture is about them.
  await page.screenshot({ path: `${SHOTS}${name}.png` });
  process.stdout.write(`wrote docs/screenshots/${name}.png\n`);
};
mkdirSync(SHOTS, { recursive: true });

// The dev provider's sign-in form needs a platform in dev mode: a small one, first.
const devStack = await startWebPlatform(['workspace'], { AUTH_PROVIDER: 'dev' });
try {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.goto(`${devStack.gatewayUrl}/`);
    await page.waitForSelector('::-p-aria([name="Sign in to the wiki"][role="heading"])');
    await shoot(page, 'sign-in');
  } finally {
    await browser.close();
  }
} finally {
  await devStack.stop();
}

const stack = await startWebPlatform(['workspace', 'document', 'search', 'collab', 'comment', 'notification']);
try {
  const ada = await stack.signIn('ada@example.com', 'Ada Lovelace');
  const ben = await stack.signIn('ben@example.com', 'Ben Hopper');
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await stack.request(method, `/api/v1${path}`, { token: ada.token, body });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  const workspace = await call('POST', '/workspaces', {
    name: 'Handbook',
    description: 'How the team works: onboarding, engineering practices and decisions.',
  });
  await addMember(stack, workspace.id, ada, ben, 'EDITOR');
  const welcome = await call('POST', '/documents', {
    workspaceId: workspace.id,
    title: 'Welcome to the handbook',
    content: WELCOME,
  });
  for (const [title, children] of TREE) {
    const parent = await call('POST', '/documents', { workspaceId: workspace.id, title });
    for (const child of children) {
      await call('POST', '/documents', { workspaceId: workspace.id, parentId: parent.id, title: child });
    }
  }
  await call('POST', `/documents/${welcome.id}/publish`);
  const docUrl = `${stack.gatewayUrl}/w/${workspace.id}/d/${welcome.id}`;

  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800, deviceScaleFactor: 1 });
    await signInPage(page, stack, ada.email, ada.name);

    // The workspace's home with one branch of the tree opened (ArrowRight, as the keyboard does).
    await page.goto(`${stack.gatewayUrl}/w/${workspace.id}`);
    const onboarding = await page.waitForSelector('::-p-aria([name="Onboarding"][role="treeitem"])');
    await onboarding?.focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('::-p-aria([name="Your first week"][role="treeitem"])');
    await page.evaluate('document.activeElement?.blur()');
    await shoot(page, 'workspace');

    // The document with a colleague in it: Ben types at the end, his cursor and name show on Ada's page.
    await page.goto(docUrl);
    await page.waitForSelector('::-p-text(Keeping it alive)', { timeout: 15_000 });
    const benContext = await browser.createBrowserContext();
    const benPage = await benContext.newPage();
    await signInPage(benPage, stack, ben.email, ben.name);
    await benPage.goto(docUrl);
    await benPage.waitForSelector('::-p-text(Keeping it alive)', { timeout: 15_000 });
    // Once the room is joined (the text is then the shared one), a new paragraph after the last.
    await benPage.waitForFunction(
      `document.querySelector('[aria-label="Document content"]')?.getAttribute('contenteditable') === 'true' &&
       document.querySelector('.connection-status')?.getAttribute('data-state') === 'connected'`,
    );
    const paragraphs = await benPage.$$('[aria-label="Document content"] [data-content-type="paragraph"]');
    const box = await paragraphs[paragraphs.length - 1]?.boundingBox();
    if (!box) throw new Error('the last paragraph is not on the page');
    await benPage.mouse.click(box.x + box.width - 2, box.y + box.height - 4);
    // The editor takes the click's caret on the next selectionchange: keys sent before it would
    // act at the caret it had (the start of the document).
    await benPage.waitForFunction(
      `getSelection().anchorNode?.parentElement?.closest('[data-content-type]')?.textContent.startsWith('Found something')`,
    );
    await benPage.keyboard.press('End');
    await benPage.keyboard.press('Enter');
    await benPage.keyboard.type('Ben: I am adding the on-call rota here today.');
    await page.waitForSelector('::-p-text(adding the on-call rota)', { timeout: 15_000 });
    await page.waitForSelector('::-p-aria([name="People here"]) ::-p-text(Ben Hopper)', { timeout: 15_000 });
    await page.evaluate('document.activeElement?.blur()');
    await shoot(page, 'document');
    await page.screenshot({ path: `${DOCS}screenshot.png` });
    await benContext.close();

    // Search results open under the searchbox.
    await page.locator('::-p-aria([name="Search"][role="searchbox"])').click();
    await page.keyboard.type('handbook');
    await page.waitForSelector('::-p-aria([name="Matching documents"][role="listbox"]) [role="option"]', {
      timeout: 15_000,
    });
    await shoot(page, 'search');
    await page.keyboard.press('Escape');

    // The Share dialog of the published document.
    await page.locator('::-p-aria([name="Share"][role="button"])').click();
    await page.waitForSelector('::-p-aria([name="Share"][role="dialog"])');
    await page.waitForFunction("document.getAnimations().every((a) => a.playState !== 'running')");
    await shoot(page, 'share');

    // The published page, read signed out.
    const reader = await browser.createBrowserContext();
    const publicPage = await reader.newPage();
    await publicPage.goto(`${stack.gatewayUrl}/p/${welcome.id}`);
    await publicPage.waitForSelector('::-p-aria([name="Keeping it alive"][role="heading"])', { timeout: 15_000 });
    await shoot(publicPage, 'published');
    await reader.close();

    // A thread on "how we work" in which Ben mentions Ada: her Comments panel, then her bell.
    const thread = await stack.request('POST', `/api/v1/comments/documents/${welcome.id}/threads`, {
      token: ben.token,
      body: {
        anchor: { blockId: 'welcome-1', startOffset: 17, endOffset: 28, selectedText: 'how we work' },
        comment: { content: `@[${ada.name}](${ada.id}) should this say how we decide too?` },
      },
    });
    if (thread.status !== 201) throw new Error(`thread: ${thread.status} ${JSON.stringify(thread.body)}`);
    await page.goto(docUrl);
    await page.waitForSelector('::-p-text(Keeping it alive)', { timeout: 15_000 });
    await page.locator('::-p-aria([name="Comments"][role="button"])').click();
    await page.waitForSelector('::-p-text(should this say how we decide too)', { timeout: 15_000 });
    await page.evaluate('document.activeElement?.blur()');
    await shoot(page, 'comments');
    await page.locator('::-p-aria([name="Comments"][role="button"])').click();

    await page.locator('::-p-aria([name="History"][role="button"])').click();
    await page.waitForSelector('::-p-aria([name="History"][role="complementary"]) li', { timeout: 15_000 });
    await page.evaluate('document.activeElement?.blur()');
    await shoot(page, 'history');
    await page.locator('::-p-aria([name="History"][role="button"])').click();

    // The bell's name carries the unread count; its badge shows once the mention is counted.
    await page.waitForSelector('.notifications-badge', { timeout: 15_000 });
    await page.locator('.notifications-button').click();
    await page.waitForSelector('::-p-aria([name="Notifications"][role="dialog"]) ::-p-text(Ben Hopper)', {
      timeout: 15_000,
    });
    await shoot(page, 'notifications');
    await page.keyboard.press('Escape');

    // The workspace's members, as its owner manages them.
    await page.goto(`${stack.gatewayUrl}/w/${workspace.id}/settings`);
    await page.waitForSelector('::-p-text(Ben Hopper)', { timeout: 15_000 });
    await shoot(page, 'members');
  } finally {
    await browser.close();
  }
} finally {
  await stack.stop();
}
