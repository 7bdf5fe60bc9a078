import { randomUUID } from 'node:crypto';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import {
  collabUrl,
  createDocument,
  createWorkspace,
  paragraph,
  type SignedInUser,
  type Stack,
  signInNew,
} from '@wiki/testing';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { startCollabStack } from './helpers.js';

/**
 * Issue 11, point 4, end to end: the provider's in-protocol token goes gateway -> collab ->
 * gateway (identity route) and its refusals count against the editor's address as the gateway
 * derived it on the upgrade (behind a trusted proxy here, so X-Forwarded-For names the editor),
 * not against the collaboration server's own address. Issue 24: over budget, valid tokens are
 * still served, and an upgrade without a token counts until its socket's token redeems it.
 */
const FAILURES = 3;

/** One provider socket speaking from `address`, with one provider per (document, token). */
function socketFrom(url: string, address: string) {
  class FromAddress extends WebSocket {
    constructor(target: string, protocols?: string | string[]) {
      super(target, protocols, { headers: { 'x-forwarded-for': address } });
    }
  }
  const socket = new HocuspocusProviderWebsocket({
    url,
    WebSocketPolyfill: FromAddress as unknown as typeof globalThis.WebSocket,
    autoConnect: false,
  });
  const providers: HocuspocusProvider[] = [];
  return {
    /** Opens `name` with `token`; resolves 'synced' or the reason the server refused it. */
    open(name: string, token: string): Promise<string> {
      return new Promise((resolve) => {
        const provider = new HocuspocusProvider({
          websocketProvider: socket,
          name,
          document: new Y.Doc(),
          token,
          onSynced: () => resolve('synced'),
          onAuthenticationFailed: ({ reason }) => resolve(reason),
        });
        providers.push(provider);
        provider.attach();
        socket.connect().catch(() => undefined);
      });
    },
    destroy() {
      for (const provider of providers) provider.destroy();
      socket.destroy();
    },
  };
}

/** The status a plain WebSocket upgrade from `address` is answered with (101 when it opens). */
function upgradeStatus(url: string, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const raw = new WebSocket(url, { headers: { 'x-forwarded-for': address } });
    raw.on('open', () => {
      raw.close();
      resolve(101);
    });
    raw.on('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    raw.on('error', reject);
  });
}

describe('collab sign-in and the guessing budget (Hocuspocus provider through the gateway)', () => {
  let t: Stack;
  let owner: SignedInUser;
  let docId: string;
  const sockets: Array<ReturnType<typeof socketFrom>> = [];
  const from = (address: string) => {
    const socket = socketFrom(collabUrl(t), address);
    sockets.push(socket);
    return socket;
  };

  beforeAll(async () => {
    t = await startCollabStack({
      RATE_LIMIT_ENABLED: 'true',
      // The other budgets are far away, so that only the guessing budget can answer 429 here.
      RATE_LIMIT_USER_PER_MIN: '10000',
      RATE_LIMIT_PUBLIC_PER_MIN: '10000',
      RATE_LIMIT_AUTH_FAILURES_PER_MIN: String(FAILURES),
      TRUST_PROXY: '127.0.0.1',
    });
    owner = await signInNew(t, 'Gus Guarded');
    const workspace = await createWorkspace(t, owner);
    docId = (await createDocument(t, owner, { workspaceId: workspace.id, title: 'Guarded', content: [paragraph('x')] }))
      .id;
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
  });
  afterAll(() => t?.stop());

  it('a valid in-protocol token under budget opens the document', async () => {
    expect(await from('10.6.0.1').open(docId, owner.token)).toBe('synced');
  });

  it('refused in-protocol tokens count against the editor; over budget a valid one is still served', async () => {
    const guesser = from('10.6.0.2');
    // One provider per document on a socket: the guesses go to documents that need not exist.
    for (let i = 0; i < FAILURES; i++) {
      expect(await guesser.open(randomUUID(), `${owner.token}${i}`)).toBe('unauthorized');
    }
    // On the socket already open: a failing token is refused unchecked, the valid one opens.
    expect(await guesser.open(randomUUID(), 'not-even-a-jwt')).toBe('rate-limited');
    expect(await guesser.open(docId, owner.token)).toBe('synced');
    // A new socket from that address opens too, and REST serves the valid token, not a bad one.
    expect(await from('10.6.0.2').open(docId, owner.token)).toBe('synced');
    const rest = (token: string) =>
      fetch(`${t.gatewayUrl}/api/v1/workspaces`, {
        headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': '10.6.0.2' },
      }).then(async (res) => {
        await res.body?.cancel();
        return res.status;
      });
    expect(await rest(owner.token)).toBe(200);
    expect(await rest('not-even-a-jwt')).toBe(429);

    // Counted against the editor, not the collaboration server: other editors go on.
    expect(await from('10.6.0.3').open(docId, owner.token)).toBe('synced');
  });

  it('sockets whose provider signs in validly leave the budget untouched (collab hands the ticket back)', async () => {
    for (let i = 0; i < FAILURES + 2; i++) expect(await from('10.6.0.4').open(docId, owner.token)).toBe('synced');
    const res = await fetch(`${t.gatewayUrl}/api/v1/workspaces`, {
      headers: { authorization: 'Bearer not-even-a-jwt', 'x-forwarded-for': '10.6.0.4' },
    });
    await res.body?.cancel();
    expect(res.status).toBe(401);
    // A socket that never signs in counts: with the budget nearly spent by it, it shows.
    for (let i = 0; i < FAILURES - 1; i++) expect(await upgradeStatus(collabUrl(t), '10.6.0.5')).toBe(101);
    const after = await fetch(`${t.gatewayUrl}/api/v1/workspaces`, {
      headers: { authorization: 'Bearer not-even-a-jwt', 'x-forwarded-for': '10.6.0.5' },
    });
    await after.body?.cancel();
    expect(after.status).toBe(401);
    const over = await fetch(`${t.gatewayUrl}/api/v1/workspaces`, {
      headers: { authorization: 'Bearer not-even-a-jwt-either', 'x-forwarded-for': '10.6.0.5' },
    });
    await over.body?.cancel();
    expect(over.status).toBe(429);
  });
});
