// `npm run screenshot`: docs/screenshot.png, the web app as a person sees it. Starts the platform
// in this process on free ports and throw-away databases (as the browser tests do), fills a sample
// workspace through the API, opens a document in Chromium and saves the picture.
// Needs the build (`npm run build`) and Chromium (CHROMIUM_PATH, default /usr/bin/chromium).
import { fileURLToPath } from 'node:url';
import { launchBrowser, signInPage } from '../web/test/helpers/browser.js';
import { startWebPlatform } from '../web/test/helpers/platform.js';

const OUTPUT = fileURLToPath(new URL('../docs/screenshot.png', import.meta.url));

const text = (value: string) => [{ type: 'text', text: value, styles: {} }];
const block = (type: string, value: string, props: Record<string, unknown> = {}) => ({
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

const stack = await startWebPlatform(['workspace', 'document', 'search', 'collab']);
try {
  const ada = await stack.signIn('ada@example.com', 'Ada Lovelace');
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await stack.request(method, `/api/v1${path}`, { token: ada.token, body });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  const workspace = await call('POST', '/workspaces', {
    name: 'Handbook',
    description: 'How the team works: onboarding, engineering practices and decisions.',
  });
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

  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 760, deviceScaleFactor: 1 });
    await signInPage(page, stack, ada.email, ada.name);
    await page.goto(`${stack.gatewayUrl}/w/${workspace.id}/d/${welcome.id}`);
    await page.waitForSelector('::-p-aria([name="Title"][role="textbox"])');
    await page.waitForSelector('::-p-text(Keeping it alive)', { timeout: 15_000 });
    // One branch of the tree opened (ArrowRight on its item, as the keyboard does).
    const onboarding = await page.waitForSelector('::-p-aria([name="Onboarding"][role="treeitem"])');
    await onboarding?.focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('::-p-aria([name="Your first week"][role="treeitem"])');
    await page.evaluate('document.activeElement?.blur()');
    await page.screenshot({ path: OUTPUT });
    process.stdout.write(`wrote ${OUTPUT}\n`);
  } finally {
    await browser.close();
  }
} finally {
  await stack.stop();
}
