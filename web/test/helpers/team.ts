import type { ServiceName } from '@wiki/config';
import {
  type ApiResponse,
  type MemberRole,
  type SignedInUser,
  type Stack,
  signInNew,
  workspaceWith,
} from '@wiki/testing';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { launchBrowser, signInPage } from './browser.js';
import { startWebPlatform } from './platform.js';

const TITLE = '::-p-aria([name="Title"][role="textbox"])';

export interface TeamOptions {
  /** The services behind the gateway (ARCHITECTURE 5.17's pages each need a few). */
  services: readonly ServiceName[];
  /** The workspace's owner first, then each member with a role. */
  people: readonly [owner: string, ...members: Array<[name: string, role: MemberRole]>];
  env?: Record<string, string>;
}

/**
 * One browser test's set-up, the same in every file that shows a workspace: the real platform with
 * the web app, Debian's Chromium, people signed in to the platform, a workspace of the first with
 * the others as members, and pages that each signed-in person opens in a browser context of their
 * own (closed after every test). Everything is ready inside the tests (set up in beforeAll).
 */
export interface TeamFixture {
  readonly stack: Stack;
  readonly browser: Browser;
  /** In the order of `people`: the owner first. */
  readonly people: SignedInUser[];
  readonly workspaceId: string;
  /** A call of the public API (`/api/v1` + path) as `as`, or without a token. */
  api<T = any>(method: string, path: string, as: SignedInUser | null, body?: unknown): Promise<ApiResponse<T>>;
  /** A page at `path` of the app, signed in as `as` (or nobody), in a browser context of its own. */
  open(path: string, as: SignedInUser | null): Promise<Page>;
  /** The document page of `documentId` as `as`, once its title field is shown. */
  openDocument(as: SignedInUser, documentId: string): Promise<Page>;
}

export function useTeamFixture(options: TeamOptions): TeamFixture {
  let stack: Stack | undefined;
  let browser: Browser | undefined;
  let people: SignedInUser[] = [];
  let workspaceId = '';
  const pages: Page[] = [];
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the team fixture has no ${what} yet (use it inside a test)`);
    return value;
  };

  beforeAll(async () => {
    stack = await startWebPlatform(options.services, options.env);
    browser = await launchBrowser();
    const [ownerName, ...members] = options.people;
    const started = stack;
    people = await Promise.all([ownerName, ...members.map(([name]) => name)].map((name) => signInNew(started, name)));
    const [owner, ...others] = people;
    workspaceId = (
      await workspaceWith(
        started,
        owner,
        others.map((user, i) => [user, members[i][1]]),
      )
    ).id;
  });
  afterEach(async () => {
    await Promise.all(pages.splice(0).map((page) => page.browserContext().close()));
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const fixture: TeamFixture = {
    get stack() {
      return ready(stack, 'platform');
    },
    get browser() {
      return ready(browser, 'browser');
    },
    get people() {
      return people;
    },
    get workspaceId() {
      return workspaceId;
    },
    api: (method, path, as, body) => fixture.stack.request(method, `/api/v1${path}`, { token: as?.token, body }),
    async open(path, as) {
      const context = await fixture.browser.createBrowserContext();
      const page = await context.newPage();
      pages.push(page);
      if (as) await signInPage(page, fixture.stack, as.email, as.name);
      await page.goto(`${fixture.stack.gatewayUrl}${path}`);
      return page;
    },
    async openDocument(as, documentId) {
      const page = await fixture.open(`/w/${workspaceId}/d/${documentId}`, as);
      await page.locator(TITLE).wait();
      return page;
    },
  };
  return fixture;
}
