import { eventually, type SignedInUser, type Stack, signInNew, workspaceWith } from '@wiki/testing';
import type { Browser, Page } from 'puppeteer-core';
import { launchBrowser, seriousAxeViolations, signInPage } from './helpers/browser.js';
import { accessibleNames, focused, tabTo, waitForPath } from './helpers/keyboard.js';
import { startWebPlatform } from './helpers/platform.js';

/**
 * Workspace settings in the browser (issue 28 point 7, ARCHITECTURE 3 and 5.17): an admin invites
 * (`textbox` "Email", `button` "Invite"), copies the link that the invitee opens and accepts,
 * changes roles and removes members; what the rules forbid is disabled with its reason; the owner
 * transfers ownership, renames, archives and deletes with the name typed; others leave.
 */
let stack: Stack;
let browser: Browser;
const pages: Page[] = [];

beforeAll(async () => {
  stack = await startWebPlatform(['workspace', 'document']);
  browser = await launchBrowser();
});
afterEach(async () => {
  await Promise.all(pages.splice(0).map((page) => page.browserContext().close()));
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function api<T = any>(user: SignedInUser, method: string, path: string, body?: unknown): Promise<T> {
  const res = await stack.request(method, `/api/v1${path}`, { token: user.token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { data: T } | null)?.data as T;
}

/** A signed-in page in a browser context of its own (two people side by side). */
async function openAs(user: SignedInUser, path: string): Promise<Page> {
  const context = await browser.createBrowserContext();
  await context.overridePermissions(stack.gatewayUrl, [
    'clipboard-read',
    'clipboard-write',
    'clipboard-sanitized-write',
  ]);
  const page = await context.newPage();
  page.setDefaultTimeout(8_000);
  pages.push(page);
  await signInPage(page, stack, user.email, user.name);
  await page.goto(`${stack.gatewayUrl}${path}`);
  return page;
}

const aria = (name: string, role: string) => `::-p-aria([name=${JSON.stringify(name)}][role="${role}"])`;
const settingsOf = (workspaceId: string) => `/w/${workspaceId}/settings`;

async function openSettings(user: SignedInUser, workspaceId: string): Promise<Page> {
  const page = await openAs(user, settingsOf(workspaceId));
  await page.waitForSelector(aria('Workspace settings', 'heading'));
  await page.waitForSelector('::-p-text(Your role here)');
  return page;
}

/** Whether the control is disabled, and the reason it is described by (aria-describedby). */
async function stateOf(page: Page, selector: string): Promise<{ disabled: boolean; reason: string }> {
  const element = await page.waitForSelector(selector);
  return (await element!.evaluate((e: any) => ({
    disabled: e.disabled === true,
    reason: (e.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id: string) => e.ownerDocument.getElementById(id)?.textContent ?? '')
      .join(' ')
      .trim(),
  }))) as { disabled: boolean; reason: string };
}

const memberRole = async (owner: SignedInUser, workspaceId: string, userId: string) =>
  (await api<any[]>(owner, 'GET', `/workspaces/${workspaceId}/members`)).find((m) => m.userId === userId)?.role;

it('invites by keyboard, copies the link the invitee accepts, and lists them as a member', async () => {
  const owner = await signInNew(stack, 'Olive Owner');
  const invitee = await signInNew(stack, 'Ivan Invitee');
  const ws = await workspaceWith(stack, owner, [], { name: 'Field notes' });
  const page = await openSettings(owner, ws.id);
  expect(await seriousAxeViolations(page)).toEqual([]);

  await tabTo(page, 'Email');
  expect((await focused(page)).tag).toBe('input');
  await page.keyboard.type(invitee.email);
  await tabTo(page, 'Role');
  await page.select('select:focus', 'COMMENTER');
  await tabTo(page, 'Message');
  await page.keyboard.type('Welcome aboard');
  await tabTo(page, 'Invite');
  await page.keyboard.press('Enter');

  await page.waitForSelector(`::-p-text(Invited ${invitee.email} as Commenter)`);
  const [pending] = await api<any[]>(owner, 'GET', `/workspaces/${ws.id}/invitations`);
  expect(pending).toMatchObject({ email: invitee.email, role: 'COMMENTER', message: 'Welcome aboard' });
  await page.waitForSelector(aria(`Copy link for ${invitee.email}`, 'button'));
  expect(await seriousAxeViolations(page)).toEqual([]);

  // "Copy link" puts this app's /invite/<token> on the clipboard.
  await page.locator(aria(`Copy link for ${invitee.email}`, 'button')).click();
  await page.waitForSelector('::-p-text(Copied.)');
  const link = (await page.evaluate('navigator.clipboard.readText()')) as string;
  expect(link).toBe(`${stack.gatewayUrl}/invite/${pending.token}`);

  // The invitee opens it in their own browser and accepts.
  const theirs = await openAs(invitee, new URL(link).pathname);
  await theirs.locator(aria('Accept', 'button')).click();
  await waitForPath(theirs, `/w/${ws.id}`);

  await page.reload();
  await page.waitForSelector(`::-p-text(${invitee.email})`);
  expect(await accessibleNames(page, 'combobox')).toContain('Role of Ivan Invitee');
  expect(await memberRole(owner, ws.id, invitee.id)).toBe('COMMENTER');
  expect(await page.$(aria(`Copy link for ${invitee.email}`, 'button'))).toBeNull();
  await page.waitForSelector('::-p-text(No invitation is waiting for an answer)');
});

it('changes a role with the select, resends and cancels invitations, and removes a member after asking', async () => {
  const owner = await signInNew(stack, 'Rita Roles');
  const editor = await signInNew(stack, 'Ed Editor');
  const gone = await signInNew(stack, 'Gil Gone');
  const ws = await workspaceWith(stack, owner, [
    [editor, 'EDITOR'],
    [gone, 'VIEWER'],
  ]);
  await api(owner, 'POST', `/workspaces/${ws.id}/members/invite`, { email: 'later@example.com', role: 'VIEWER' });
  const page = await openSettings(owner, ws.id);

  // The select by keyboard: focus it and pick another role.
  await tabTo(page, 'Role of Ed Editor');
  await page.select('select:focus', 'ADMIN');
  await page.waitForSelector('::-p-text(Ed Editor is now Admin.)');
  expect(await memberRole(owner, ws.id, editor.id)).toBe('ADMIN');

  await page.locator(aria('Resend the invitation to later@example.com', 'button')).click();
  await page.waitForSelector('::-p-text(The invitation to later@example.com is sent again)');
  await page.locator(aria('Cancel the invitation to later@example.com', 'button')).click();
  await page.waitForSelector('::-p-text(The invitation to later@example.com is cancelled.)');
  expect(await api(owner, 'GET', `/workspaces/${ws.id}/invitations`)).toEqual([]);

  // Remove asks first; Cancel keeps the member, the confirmation removes them.
  await tabTo(page, 'Remove Gil Gone');
  await page.keyboard.press('Enter');
  await page.waitForSelector(aria('Remove Gil Gone?', 'alertdialog'));
  expect(await seriousAxeViolations(page)).toEqual([]);
  expect((await focused(page)).name).toBe('Cancel');
  await page.keyboard.press('Escape');
  await page.waitForSelector(aria('Remove Gil Gone?', 'alertdialog'), { hidden: true });
  expect(await memberRole(owner, ws.id, gone.id)).toBe('VIEWER');

  await page.locator(aria('Remove Gil Gone', 'button')).click();
  await page.locator(aria('Remove member', 'button')).click();
  await page.waitForSelector('::-p-text(Gil Gone is no longer a member.)');
  expect(await memberRole(owner, ws.id, gone.id)).toBeUndefined();
  // The status comes with the answer; the list is read again after it.
  await eventually(async () => expect(await accessibleNames(page, 'combobox')).not.toContain('Role of Gil Gone'));
});

it('shows what the rules forbid as disabled controls with the reason, and read-only members to non-admins', async () => {
  const owner = await signInNew(stack, 'Oona Owner');
  const admin = await signInNew(stack, 'Ada Admin');
  const viewer = await signInNew(stack, 'Vic Viewer');
  const ws = await workspaceWith(stack, owner, [
    [admin, 'ADMIN'],
    [viewer, 'VIEWER'],
  ]);

  const asAdmin = await openSettings(admin, ws.id);
  expect(await stateOf(asAdmin, aria('Role of Oona Owner', 'combobox'))).toEqual({
    disabled: true,
    reason: "The owner's role changes only by transferring ownership.",
  });
  expect(await stateOf(asAdmin, aria('Remove Oona Owner', 'button'))).toEqual({
    disabled: true,
    reason: 'The owner cannot be removed; ownership must be transferred first.',
  });
  expect(await stateOf(asAdmin, aria('Role of Ada Admin', 'combobox'))).toMatchObject({
    disabled: true,
    reason: expect.stringMatching(/your own role/),
  });
  expect(await stateOf(asAdmin, aria('Transfer ownership', 'button'))).toEqual({
    disabled: true,
    reason: 'Only the owner can transfer ownership.',
  });
  expect(await stateOf(asAdmin, aria('Delete workspace', 'button'))).toEqual({
    disabled: true,
    reason: 'Only the owner can delete the workspace.',
  });
  // What the admin may do stays enabled: the viewer's role and removal, inviting, leaving.
  expect(await stateOf(asAdmin, aria('Role of Vic Viewer', 'combobox'))).toEqual({ disabled: false, reason: '' });
  expect(await stateOf(asAdmin, aria('Remove Vic Viewer', 'button'))).toEqual({ disabled: false, reason: '' });
  expect(await stateOf(asAdmin, aria('Invite', 'button'))).toMatchObject({ disabled: false });
  expect(await stateOf(asAdmin, aria('Leave workspace', 'button'))).toEqual({ disabled: false, reason: '' });
  // An admin never grants OWNER.
  const options = await asAdmin.$$eval('select[aria-label="Role of Vic Viewer"] option', (o: any[]) =>
    o.map((x) => x.value),
  );
  expect(options).toEqual(['ADMIN', 'EDITOR', 'COMMENTER', 'VIEWER']);
  expect(await seriousAxeViolations(asAdmin)).toEqual([]);
  // The disabled controls and their reasons stay readable in the dark theme too.
  await api(admin, 'PUT', '/users/me/preferences', { theme: 'dark' });
  await asAdmin.reload();
  await asAdmin.waitForFunction(`document.documentElement.getAttribute('data-mantine-color-scheme') === 'dark'`);
  await asAdmin.waitForSelector('::-p-text(Your role here)');
  expect(await seriousAxeViolations(asAdmin)).toEqual([]);

  const asViewer = await openSettings(viewer, ws.id);
  await asViewer.waitForSelector(
    '::-p-text(Only admins and the owner can change roles, remove members or invite people.)',
  );
  await asViewer.waitForSelector('::-p-text(Only admins and the owner can invite people and see pending invitations.)');
  expect((await accessibleNames(asViewer, 'combobox')).filter((name) => name.startsWith('Role of'))).toEqual([]);
  expect(await asViewer.$(aria('Email', 'textbox'))).toBeNull();
  expect(await asViewer.$(aria('Remove Ada Admin', 'button'))).toBeNull();
  await asViewer.waitForSelector('::-p-text(Ada Admin)');
  expect(await seriousAxeViolations(asViewer)).toEqual([]);

  // A non-owner leaves (after confirming) and lands at home.
  await tabTo(asViewer, 'Leave workspace');
  await asViewer.keyboard.press('Enter');
  await asViewer.locator(aria('Leave', 'button')).click();
  await asViewer.waitForFunction(`!location.pathname.startsWith('/w/${ws.id}')`);
  expect(await memberRole(owner, ws.id, viewer.id)).toBeUndefined();

  // The owner cannot leave: disabled with the reason.
  const asOwner = await openSettings(owner, ws.id);
  expect(await stateOf(asOwner, aria('Leave workspace', 'button'))).toEqual({
    disabled: true,
    reason: 'The owner cannot leave: transfer ownership to another member first.',
  });
});

it('lets the owner transfer ownership, after which they are an admin', async () => {
  const owner = await signInNew(stack, 'Tess Transfer');
  const heir = await signInNew(stack, 'Hal Heir');
  const ws = await workspaceWith(stack, owner, [[heir, 'EDITOR']]);
  const page = await openSettings(owner, ws.id);

  await page.locator(aria('New owner', 'combobox')).wait();
  await page.locator(aria('Transfer ownership', 'button')).click();
  await page.waitForSelector(aria('Make Hal Heir the owner?', 'alertdialog'));
  await page.locator(aria('Make Hal Heir the owner', 'button')).click();

  await eventually(async () => expect((await api(owner, 'GET', `/workspaces/${ws.id}`)).ownerId).toBe(heir.id));
  expect(await memberRole(owner, ws.id, owner.id)).toBe('ADMIN');
  await page.waitForSelector('::-p-text(Only the owner can delete the workspace.)');
  expect(await stateOf(page, aria('Transfer ownership', 'button'))).toMatchObject({ disabled: true });
});

it('renames, describes and sets the icon, archives and unarchives, and deletes only with the name typed', async () => {
  const owner = await signInNew(stack, 'Wren Workspace');
  const ws = await workspaceWith(stack, owner, [], { name: 'Old name' });
  const page = await openSettings(owner, ws.id);

  await page.locator(aria('Name', 'textbox')).fill('Handbook');
  await page.locator(aria('Description', 'textbox')).fill('How we work');
  await page.locator(aria('Icon', 'textbox')).fill('📘');
  await tabTo(page, 'Save changes');
  await page.keyboard.press('Enter');
  await page.waitForSelector('::-p-text(Saved.)');
  expect(await api(owner, 'GET', `/workspaces/${ws.id}`)).toMatchObject({
    name: 'Handbook',
    description: 'How we work',
    icon: '📘',
  });
  // The header's switcher follows the new name.
  await page.waitForSelector(aria('Workspace: Handbook', 'button'));

  await page.locator(aria('Archive workspace', 'button')).click();
  await page.locator(aria('Archive', 'button')).click();
  await page.waitForSelector(aria('Unarchive workspace', 'button'));
  expect((await api(owner, 'GET', `/workspaces/${ws.id}`)).isArchived).toBe(true);
  await page.locator(aria('Unarchive workspace', 'button')).click();
  await page.waitForSelector(aria('Archive workspace', 'button'));
  expect((await api(owner, 'GET', `/workspaces/${ws.id}`)).isArchived).toBe(false);

  await page.locator(aria('Delete workspace', 'button')).click();
  const dialog = aria('Delete Handbook forever?', 'alertdialog');
  await page.waitForSelector(dialog);
  expect(await seriousAxeViolations(page)).toEqual([]);
  const confirmName = "Type the workspace's name, Handbook, to confirm";
  await page.locator(aria(confirmName, 'textbox')).fill('Handboo');
  expect(await stateOf(page, aria('Delete forever', 'button'))).toMatchObject({ disabled: true });
  await page.locator(aria(confirmName, 'textbox')).fill('Handbook');
  await page.locator(aria('Delete forever', 'button')).click();
  await page.waitForFunction(`!location.pathname.startsWith('/w/${ws.id}')`);
  const res = await stack.request('GET', `/api/v1/workspaces/${ws.id}`, { token: owner.token });
  expect(res.status).toBe(404);
});

it('is reached from the workspace menu', async () => {
  const owner = await signInNew(stack, 'Mo Menu');
  const ws = await workspaceWith(stack, owner, [], { name: 'Menu space' });
  const page = await openAs(owner, `/w/${ws.id}`);
  await page.waitForSelector(aria('Menu space', 'heading'));
  await tabTo(page, 'Workspace: Menu space');
  await page.keyboard.press('Enter');
  await page.waitForSelector(aria('Workspace settings', 'menuitem'));
  // Mantine moves the focus into the menu after its opening frame: wait for each move to land.
  for (let i = 0; i < 10 && (await focused(page)).name !== 'Workspace settings'; i++) {
    await page.evaluate('window.focusedBefore = document.activeElement');
    await page.keyboard.press('ArrowDown');
    await page
      .waitForFunction('document.activeElement !== window.focusedBefore', { timeout: 2_000 })
      .catch(() => undefined);
  }
  expect((await focused(page)).name).toBe('Workspace settings');
  await page.keyboard.press('Enter');
  await waitForPath(page, settingsOf(ws.id));
  await page.waitForSelector(aria('Workspace settings', 'heading'));
});
