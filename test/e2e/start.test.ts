import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import type { Config } from '@wiki/config';
import { cleanupConfig, isolatedConfig, type JwksServer, startJwks } from '@wiki/testing';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { launchBrowser, seedOidcSession } from '../../web/test/helpers/browser.js';
import { childrenOf, type Launch, launchPlatform, listeners } from './launch.js';

/**
 * `npm start` as an operator runs it: real processes from the compiled dist/, configured only
 * through the environment (oidc mode, own ports, database prefix, stream and subject prefix).
 * Needs the build that `npm test` runs first.
 */
describe('npm start', () => {
  let jwks: JwksServer;
  let config: Config;
  let gateway: string;
  let child: Launch['child'] | undefined;
  let launch: Launch | undefined;

  beforeAll(async () => {
    jwks = await startJwks();
    config = isolatedConfig(jwks);
    launch = await launchPlatform(config, jwks, {}, { ipc: true });
    child = launch.child;
    gateway = launch.gatewayUrl;
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
    }
    await jwks?.close();
    if (config) await cleanupConfig(config);
  });

  it('runs the gateway and every service in one process by default, and says so', async () => {
    const [pid] = childrenOf(child!.pid!);
    expect(childrenOf(child!.pid!)).toEqual([pid]);
    // That one process listens on every part's port.
    for (const port of launch!.ports) expect(listeners(port)).toEqual([pid]);
    expect(launch!.output()).toContain('Mode: one process for every part (--processes=separate runs one per part).');
    // Printed to stderr just before the banner on stdout: the two pipes may arrive in either order.
    await vi.waitFor(() =>
      expect(launch!.output()).toContain(
        `Processes: 1 (pid ${pid}: workspace, document, search, comment, attachment, notification, export, mcp, collab, gateway)`,
      ),
    );
    // A rolling restart of one part needs separate processes: the request is answered so, nothing restarts.
    const answer = new Promise((resolve) => {
      const onMessage = (message: { type?: string }) => {
        if (message.type !== 'restarted') return; // the earlier 'up'
        child!.off('message', onMessage);
        resolve(message);
      };
      child!.on('message', onMessage);
    });
    child!.send({ type: 'restart', part: 'document' });
    expect(await answer).toEqual({
      type: 'restarted',
      part: 'document',
      error:
        'every part runs in one process: restarting document alone needs --processes=separate (or REPLICAS above 1)',
    });
    expect(childrenOf(child!.pid!)).toEqual([pid]);
  });

  it('serves the API through the gateway with tokens of the configured provider', async () => {
    const token = await jwks.mint({ sub: 'idp|e2e-ada', email: 'ada@example.com', name: 'Ada' });
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    const health = await fetch(`${gateway}/actuator/health`);
    expect(await health.json()).toEqual({
      status: 'UP',
      services: {
        workspace: 'UP',
        document: 'UP',
        search: 'UP',
        comment: 'UP',
        notification: 'UP',
        attachment: 'UP',
        export: 'UP',
        collab: 'UP',
        mcp: 'UP',
      },
      redis: 'UP',
    });

    const workspaces = (await (await fetch(`${gateway}/api/v1/workspaces`, { headers: auth })).json()) as {
      data: unknown[];
    };
    expect(workspaces.data).toEqual([expect.objectContaining({ name: "Ada's workspace", isDefault: true })]);

    const created = await fetch(`${gateway}/api/v1/workspaces`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'E2E' }),
    });
    expect(created.status).toBe(201);
    const workspaceId = ((await created.json()) as { data: { id: string } }).data.id;
    const doc = await fetch(`${gateway}/api/v1/documents`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ workspaceId, title: 'Hello' }),
    });
    expect(doc.status).toBe(201);
    const docId = ((await doc.json()) as { data: { id: string } }).data.id;

    // Invitation links point to the gateway's public port (INVITE_URL unset), not the default 8080.
    const invited = await fetch(`${gateway}/api/v1/workspaces/${workspaceId}/members/invite`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ email: 'invitee@example.com', role: 'VIEWER' }),
    });
    expect(invited.status).toBe(201);
    const { inviteLink } = ((await invited.json()) as { data: { inviteLink: string } }).data;
    expect(new URL(inviteLink).origin).toBe(`http://localhost:${new URL(gateway).port}`);

    // The search service indexes the document from its event.
    const search = `${gateway}/api/v1/documents/search?workspaceId=${workspaceId}&query=hello`;
    await expect
      .poll(async () => ((await (await fetch(search, { headers: auth })).json()) as { data: { id: string }[] }).data, {
        timeout: 10_000,
        interval: 100,
      })
      .toEqual([expect.objectContaining({ id: docId, matchField: 'title' })]);

    // The notification service answers through the gateway.
    const count = await fetch(`${gateway}/api/v1/notifications/count`, { headers: auth });
    expect(await count.json()).toEqual({ success: true, data: { unreadCount: 0 } });

    // The MCP service answers a tool call through the gateway with a key of the user's.
    const keyRes = await fetch(`${gateway}/api/v1/users/me/mcp-keys`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'e2e' }),
    });
    expect(keyRes.status).toBe(201);
    const mcpKey = ((await keyRes.json()) as { data: { key: string } }).data.key;
    const toolCall = await fetch(`${gateway}/api/v1/mcp`, {
      method: 'POST',
      headers: {
        'x-mcp-api-key': mcpKey,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'wikiListDocuments', arguments: { workspaceId } },
      }),
    });
    expect(toolCall.status).toBe(200);
    const answer = (await toolCall.json()) as { result: { content: Array<{ text: string }> } };
    expect(JSON.parse(answer.result.content[0].text).documents).toEqual([
      expect.objectContaining({ id: docId, title: 'Hello' }),
    ]);

    // The attachment service takes an upload through the gateway and serves it back.
    const form = new FormData();
    form.append('workspaceId', workspaceId);
    form.append('documentId', docId);
    form.append('file', new Blob(['hello, file']), 'hello.txt');
    const bearer = { authorization: auth.authorization };
    const uploaded = await fetch(`${gateway}/api/v1/attachments/upload`, {
      method: 'POST',
      headers: bearer,
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const { url } = ((await uploaded.json()) as { data: { url: string } }).data;
    expect(await (await fetch(`${gateway}${url}`, { headers: bearer })).text()).toBe('hello, file');

    // The export service (API and worker, both started by npm start) renders the document.
    const exported = await fetch(`${gateway}/api/v1/documents/${docId}/export?format=markdown`, { headers: bearer });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''Hello.md");
    expect(await exported.text()).toBe('# Hello\n\n');

    // The collaboration server opens the document over the gateway's /collab WebSocket.
    const ydoc = new Y.Doc();
    const socket = new HocuspocusProviderWebsocket({
      url: `${gateway.replace(/^http/, 'ws')}/collab`,
      WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
      autoConnect: false,
    });
    const provider = new HocuspocusProvider({ websocketProvider: socket, name: docId, document: ydoc, token });
    provider.attach();
    socket.connect().catch(() => undefined);
    try {
      await expect.poll(() => provider.isSynced, { timeout: 10_000, interval: 50 }).toBe(true);
      expect(provider.authorizedScope).toBe('read-write');
    } finally {
      provider.destroy();
      socket.destroy();
    }

    const anonymous = await fetch(`${gateway}/api/v1/workspaces`);
    expect(anonymous.status).toBe(401);
  });

  it('serves the built web app at / and tells the browser how to sign in', async () => {
    const page = await fetch(`${gateway}/w/any/d/thing`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    const script = html.match(/<script[^>]+src="(\/assets\/[^"]+\.js)"/)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${gateway}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');

    const signIn = await fetch(`${gateway}/auth/config`);
    expect(await signIn.json()).toMatchObject({ provider: 'oidc', issuer: jwks.issuer });
    // The dev provider's form is not there under oidc.
    const dev = await fetch(`${gateway}/auth/dev/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.com' }),
    });
    expect(dev.status).toBe(404);
  });

  it('lets a person write in the browser: "New document", a title and a paragraph, stored', async () => {
    const email = 'bea@example.com';
    const token = await jwks.mint({ sub: `idp|${email}`, email, name: 'Bea' });
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await seedOidcSession(page, { issuer: jwks.issuer, clientId: jwks.audience, token, email, name: 'Bea' });
      await page.goto(`${gateway}/`);
      await page.locator('::-p-aria([name="New document"][role="button"])').click();
      await page.waitForFunction(`/\\/d\\/[0-9a-f-]{36}$/.test(location.pathname)`);
      const documentId = page.url().split('/d/')[1];

      await page.locator('::-p-aria([name="Title"][role="textbox"])').click();
      await page.keyboard.type('Written in a browser');
      // Enter leaves the title for the text, once the live connection lets it be edited.
      await page.waitForFunction(
        `document.querySelector('[aria-label="Document content"]')?.getAttribute('contenteditable') === 'true' &&
         document.querySelector('.connection-status')?.getAttribute('data-state') === 'connected'`,
      );
      await page.keyboard.press('Enter');
      await page.keyboard.type('A paragraph typed against npm start.');

      const auth = { authorization: `Bearer ${token}` };
      await expect
        .poll(
          async () => {
            const res = await fetch(`${gateway}/api/v1/documents/${documentId}`, { headers: auth });
            const { data } = (await res.json()) as { data: { title: string; content: unknown } };
            return {
              title: data.title,
              text: JSON.stringify(data.content).includes('A paragraph typed against npm start.'),
            };
          },
          { timeout: 10_000, interval: 200 },
        )
        .toEqual({ title: 'Written in a browser', text: true });
    } finally {
      await browser.close();
    }
  });

  it('stops every process on SIGINT', async () => {
    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    child!.kill('SIGINT');
    expect(await exited).toBe(0);
    await expect(fetch(`${gateway}/health/live`)).rejects.toThrow();
  }, 30_000);
});
