import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDocument, eventually, type SignedInUser, type Stack } from '@wiki/testing';
import type { HTTPResponse, Page } from 'puppeteer-core';
import { seriousAxeViolations } from './helpers/browser.js';
import { focused, tabTo } from './helpers/keyboard.js';
import { useTeamFixture } from './helpers/team.js';

interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A webhook receiver on loopback: `/flaky` answers 500 while `refusing`, everything else 200. */
class Receiver {
  readonly received: Received[] = [];
  refusing = true;
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        const refuse = path === '/flaky' && this.refusing;
        this.received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(refuse ? 500 : 200).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const aria = (name: string, role: string) => `::-p-aria([name=${JSON.stringify(name)}][role="${role}"])`;

// The Webhooks section of the workspace settings (issue 31, ARCHITECTURE 5.18) against the real
// gateway and workspace, document and notification services. Loopback is allowed as a target here
// only; a failing delivery is failed after its first attempt (a retry window of 100 ms).
describe('webhooks in the workspace settings', () => {
  const team = useTeamFixture({
    services: ['workspace', 'document', 'notification'],
    people: ['Olga Owner', ['Ada Admin', 'ADMIN'], ['Ed Editor', 'EDITOR']],
    env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_RETRY_WINDOW_MS: '100' },
  });
  const receiver = new Receiver();
  let stack: Stack;
  let owner: SignedInUser;
  let admin: SignedInUser;
  let editor: SignedInUser;
  let workspaceId: string;
  beforeAll(async () => {
    ({ stack, workspaceId } = team);
    [owner, admin, editor] = team.people;
    await receiver.start();
  });
  afterAll(() => receiver.stop());

  const webhooksAsApi = async () => (await team.api('GET', `/workspaces/${workspaceId}/webhooks`, owner)).body.data;

  async function openSettings(as: SignedInUser): Promise<Page> {
    const page = await team.open(`/w/${workspaceId}/settings`, as);
    page.setDefaultTimeout(15_000);
    await page.waitForSelector(aria('Webhooks', 'heading'));
    return page;
  }

  it('adds a webhook by keyboard, shows its secret once, and lists the signed delivery of a new document', async () => {
    const page = await openSettings(admin);
    await page.waitForSelector('::-p-text(No webhook yet)');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await tabTo(page, 'Webhook URL', 150);
    await page.keyboard.type(`${receiver.url}/hook`);
    await tabTo(page, 'Events');
    expect(await page.$eval('input:focus', (e: any) => e.value)).toBe('*');
    await page.keyboard.down('Control');
    await page.keyboard.press('a');
    await page.keyboard.up('Control');
    await page.keyboard.type('document.*, comment.added');
    await tabTo(page, 'Add webhook');
    await page.keyboard.press('Enter');

    const secretField = await page.waitForSelector(aria('Signing secret', 'textbox'));
    const secret = (await secretField!.evaluate((e: any) => e.value)) as string;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(await secretField!.evaluate((e: any) => e.readOnly)).toBe(true);
    await page.waitForSelector('::-p-text(it will not be shown again)');
    const [hook] = await webhooksAsApi();
    expect(hook).toMatchObject({ url: `${receiver.url}/hook`, events: ['document.*', 'comment.added'], enabled: true });
    expect(hook.secret).toBeUndefined();
    expect(await seriousAxeViolations(page)).toEqual([]);

    // Gone once dismissed, and not there after a reload either.
    await page.locator(aria('Done, I have copied it', 'button')).click();
    await page.waitForSelector(aria('Webhook URL', 'textbox'));
    expect(await page.$(aria('Signing secret', 'textbox'))).toBeNull();
    await page.reload();
    await page.waitForSelector(`::-p-text(${receiver.url}/hook)`);
    expect(await page.$(aria('Signing secret', 'textbox'))).toBeNull();
    expect(await page.$(`::-p-text(${secret})`)).toBeNull();

    // A document's creation reaches the receiver, signed with the secret that was shown.
    const doc = await createDocument(stack, owner, { workspaceId, title: 'Hooked page' });
    const request = await eventually(() => {
      const created = receiver.at('/hook').find((r) => JSON.parse(r.body).event === 'document.created');
      expect(created).toBeDefined();
      return created!;
    });
    expect(JSON.parse(request.body).data).toMatchObject({ id: doc.id });
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]+)$/.exec(String(request.headers['wiki-signature']))!;
    expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${request.body}`).digest('hex'));

    // Its log shows the delivery as delivered with the receiver's 200.
    const toggle = aria(`Deliveries to ${receiver.url}/hook`, 'button');
    await page.locator(toggle).click();
    expect(await page.$eval(toggle, (e: any) => e.getAttribute('aria-expanded'))).toBe('true');
    const row = await page.waitForSelector('::-p-xpath(//tr[td[.="document.created"] and td[.="Delivered"]])');
    expect(await row!.evaluate((e: any) => [...e.cells].map((c: any) => c.textContent))).toEqual([
      'document.created',
      'Delivered',
      '200',
      expect.stringMatching(/^\d+ ms$/),
      expect.any(String),
      '',
    ]);
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('shows why a private address is refused, and adds nothing', async () => {
    const before = (await webhooksAsApi()).length;
    const page = await openSettings(admin);
    await page.locator(aria('Webhook URL', 'textbox')).fill('http://10.0.0.1/hook');
    await page.locator(aria('Add webhook', 'button')).click();
    const alert = await page.waitForSelector('::-p-text(The webhook URL was refused)');
    expect(await alert!.evaluate((e: any) => [e.getAttribute('role'), e.textContent])).toEqual([
      'alert',
      expect.stringContaining('10.0.0.1, a private address'),
    ]);
    expect(await page.$(aria('Signing secret', 'textbox'))).toBeNull();
    expect((await webhooksAsApi()).length).toBe(before);
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('says so when the workspace has as many webhooks as it may (409), and adds nothing', async () => {
    const extra: string[] = [];
    for (let n = (await webhooksAsApi()).length; n < 20; n++) {
      const res = await team.api('POST', `/workspaces/${workspaceId}/webhooks`, owner, {
        url: `${receiver.url}/extra-${n}`,
        events: ['workspace.*'],
      });
      expect(res.status).toBe(201);
      extra.push(res.body.data.id);
    }
    try {
      const page = await openSettings(admin);
      await page.locator(aria('Webhook URL', 'textbox')).fill(`${receiver.url}/one-too-many`);
      await page.locator(aria('Add webhook', 'button')).click();
      const alert = await page.waitForSelector('::-p-text(at most 20 webhooks)');
      expect(await alert!.evaluate((e: any) => [e.getAttribute('role'), e.textContent])).toEqual([
        'alert',
        'The webhook was not added: A workspace may have at most 20 webhooks',
      ]);
      expect(await page.$(aria('Signing secret', 'textbox'))).toBeNull();
      expect((await webhooksAsApi()).some((w: any) => w.url.endsWith('/one-too-many'))).toBe(false);
    } finally {
      for (const id of extra) await team.api('DELETE', `/webhooks/${id}`, owner);
    }
  });

  it('redelivers a failed delivery, turns a webhook off with its switch, and deletes it after asking', async () => {
    const created = await team.api('POST', `/workspaces/${workspaceId}/webhooks`, owner, {
      url: `${receiver.url}/flaky`,
      events: ['document.created'],
    });
    expect(created.status).toBe(201);
    const hookId = created.body.data.id as string;
    await createDocument(stack, owner, { workspaceId, title: 'Refused at first' });
    await eventually(async () => {
      const log = await team.api('GET', `/webhooks/${hookId}/deliveries`, owner);
      expect(log.body.data.content.map((d: any) => d.status)).toEqual(['failed']);
    });

    const page = await openSettings(admin);
    // In front: a page the browser thinks hidden may not run the frames a selector wait polls on.
    await page.bringToFront();
    await page.locator(aria(`Deliveries to ${receiver.url}/flaky`, 'button')).click();
    await page.waitForSelector(
      '::-p-xpath(//tr[td[.="document.created"] and td[starts-with(., "Failed")] and td[.="500"]])',
    );
    const refused = receiver.at('/flaky').length;
    receiver.refusing = false;
    // What the page asked and was told about the log, for the failure message below.
    const logReads: string[] = [];
    const onResponse = (r: HTTPResponse) => {
      if (!r.url().includes('/deliveries')) return;
      void r
        .text()
        .catch(() => '')
        .then((body) => logReads.push(`${r.request().method()} ${r.status()} ${body.slice(0, 240)}`));
    };
    page.on('response', onResponse);
    const redeliver = await page.waitForSelector('::-p-xpath(//button[.="Redeliver"])');
    expect(await redeliver!.evaluate((e: any) => e.getAttribute('aria-label'))).toMatch(
      /^Redeliver document\.created of /,
    );
    await page.locator('::-p-xpath(//button[.="Redeliver"])').click();
    // The outcome through the API (its row names status and response when this fails).
    await eventually(
      async () => {
        const log = await team.api('GET', `/webhooks/${hookId}/deliveries`, owner);
        expect(log.body.data.content).toMatchObject([{ status: 'delivered', responseStatus: 200 }]);
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(receiver.at('/flaky')).toHaveLength(refused + 1);
    // And in the open list, without a reload. Read from the page's cells (not a selector wait, whose
    // polling a page the browser deems hidden may not run); a failure says what the list showed.
    const deliveredRow = `//tr[td[.="document.created"] and td[starts-with(., "Delivered")] and td[.="200"]]`;
    const rowShown = () =>
      page.evaluate(
        `document.evaluate(${JSON.stringify(deliveredRow)}, document, null, XPathResult.BOOLEAN_TYPE, null).booleanValue`,
      ) as Promise<boolean>;
    await eventually(
      async () => {
        if (await rowShown()) return;
        const shown = await page.evaluate(`document.querySelector('.webhook-deliveries')?.textContent`);
        const visibility = await page.evaluate('document.visibilityState');
        throw new Error(
          `the open list did not show the redelivery; it shows (${visibility}): ${shown}\n${logReads.join('\n')}`,
        );
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    page.off('response', onResponse);

    // The switch, by keyboard: Space turns it off.
    const name = `Enabled: ${receiver.url}/flaky`;
    await page.focus(aria(name, 'switch'));
    expect((await focused(page)).name).toBe(name);
    await page.keyboard.press('Space');
    await page.waitForSelector(`::-p-text(The webhook to ${receiver.url}/flaky is off.)`);
    const off = (await webhooksAsApi()).find((w: any) => w.id === hookId);
    expect(off.enabled).toBe(false);
    expect(await page.$eval(aria(name, 'switch'), (e: any) => e.checked)).toBe(false);

    // Delete asks first; Cancel keeps it, confirming removes it.
    await page.locator(aria(`Delete the webhook to ${receiver.url}/flaky`, 'button')).click();
    await page.waitForSelector(aria('Delete this webhook?', 'heading'));
    expect((await focused(page)).name).toBe('Cancel');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.keyboard.press('Enter');
    expect((await webhooksAsApi()).some((w: any) => w.id === hookId)).toBe(true);
    await page.locator(aria(`Delete the webhook to ${receiver.url}/flaky`, 'button')).click();
    await page.locator(aria('Delete webhook', 'button')).click();
    await page.waitForSelector(`::-p-text(The webhook to ${receiver.url}/flaky is deleted.)`);
    expect((await webhooksAsApi()).some((w: any) => w.id === hookId)).toBe(false);
    expect(await page.$(aria(`Deliveries to ${receiver.url}/flaky`, 'button'))).toBeNull();
  }, 90_000);

  it('gives an editor no form and no list, only the reason', async () => {
    const page = await openSettings(editor);
    await page.waitForSelector("::-p-text(Only admins and the owner can see and manage the workspace's webhooks.)");
    expect(await page.$(aria('Webhook URL', 'textbox'))).toBeNull();
    expect(await page.$(aria('Add webhook', 'button'))).toBeNull();
    expect(await page.$(`::-p-text(${receiver.url}/hook)`)).toBeNull();
    expect((await team.api('GET', `/workspaces/${workspaceId}/webhooks`, editor)).status).toBe(403);
    expect(await seriousAxeViolations(page)).toEqual([]);
  });
});
