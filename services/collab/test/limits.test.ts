import type { AddressInfo } from 'node:net';
import {
  COLLAB_FRAGMENT,
  type CollabEditor,
  collabUrl,
  connectEditor,
  createDocument,
  deniedReason,
  eventually,
  paragraph,
  type SignedInUser,
  type Stack,
  signInNew,
  synced,
  workspaceWith,
} from '@wiki/testing';
import type * as Y from 'yjs';
import { TOO_MANY_CONNECTIONS } from '../src/collab-server.js';
import { type RunningCollab, startService as startCollab, TOO_MANY_UPDATES } from '../src/service.js';
import { DEFAULT_COLLAB_SETTINGS } from '../src/settings.js';
import { startCollabStack } from './helpers.js';

/**
 * COLLAB_CONNECTIONS_PER_USER across replicas and the per-socket message rate
 * (COLLAB_UPDATES_PER_SECOND with a burst of COLLAB_UPDATES_BURST), with real providers. The
 * stack's replica (behind the gateway) and a second one run with small limits, to test at them;
 * a third runs with the defaults, for a typist and a flood.
 */
const PER_USER = 3;
const RATE = 2;
const BURST = 30;

describe('collaboration limits', () => {
  let t: Stack;
  let ada: SignedInUser;
  let bob: SignedInUser;
  let ws: string;
  let docId: string;
  const editors: CollabEditor[] = [];
  const replicas: RunningCollab[] = [];

  const open = (url: string, as: SignedInUser, options: Parameters<typeof connectEditor>[3] = {}, doc = docId) => {
    const e = connectEditor(url, doc, as.token, options);
    editors.push(e);
    return e;
  };
  /** A replica on the stack's environment with `env` over it (an undefined variable is unset). */
  const startReplica = async (env: Record<string, string | undefined>) => {
    const replica = await startCollab({ ...t.config, env: { ...t.config.env, ...env } });
    replicas.push(replica);
    await replica.app.listen({ port: 0, host: '127.0.0.1' });
    return `ws://127.0.0.1:${(replica.app.server.address() as AddressInfo).port}/collab`;
  };
  /** Settled: every change the provider sent was taken by the server. */
  const settled = (e: CollabEditor) => eventually(() => expect(e.provider.hasUnsyncedChanges).toBe(false));
  const tooManyUpdates = (e: CollabEditor) =>
    e.closes.some((c) => c.code === TOO_MANY_UPDATES.code && c.reason === TOO_MANY_UPDATES.reason);
  /** The text of the first paragraph, where `typeInto` types. */
  const firstText = (doc: Y.Doc) => {
    const container = (doc.getXmlFragment(COLLAB_FRAGMENT).get(0) as Y.XmlElement).get(0) as Y.XmlElement;
    return (container.get(0) as Y.XmlElement).get(0) as Y.XmlText;
  };
  /** One keystroke: one Yjs update, as an editor sends it. */
  const typeInto = (e: CollabEditor, char: string) => {
    const text = firstText(e.doc);
    text.insert(text.length, char);
  };

  beforeAll(async () => {
    t = await startCollabStack({
      COLLAB_CONNECTIONS_PER_USER: String(PER_USER),
      COLLAB_UPDATES_PER_SECOND: String(RATE),
      COLLAB_UPDATES_BURST: String(BURST),
    });
    [ada, bob] = await Promise.all(['Ada Tabs', 'Bob Typist'].map((n) => signInNew(t, n)));
    ws = (await workspaceWith(t, ada, [[bob, 'EDITOR']])).id;
    docId = (await createDocument(t, ada, { workspaceId: ws, title: 'Bounded', content: [paragraph('start')] })).id;
  });
  afterEach(() => {
    for (const e of editors.splice(0)) e.destroy();
  });
  afterAll(async () => {
    for (const replica of replicas) await replica.stop().catch(() => undefined);
    await t?.stop();
  });

  it(`takes ${PER_USER} connections of a user across replicas and refuses the next with a reason`, async () => {
    const other = await startReplica({});
    const held = [await synced(open(collabUrl(t), ada)), await synced(open(other, ada))];
    // Another document counts too: the bound is on the user's connections, not per document.
    const second = await createDocument(t, ada, { workspaceId: ws, title: 'Another', content: [] });
    held.push(await synced(open(collabUrl(t), ada, {}, second.id)));

    expect(await deniedReason(open(other, ada))).toBe(TOO_MANY_CONNECTIONS);
    expect(await deniedReason(open(collabUrl(t), ada))).toBe(TOO_MANY_CONNECTIONS);
    // Someone else is not affected.
    await synced(open(other, bob));
    for (const e of held) expect(e.provider.isAuthenticated).toBe(true);

    // A connection that ends frees its place (here its socket closes).
    held[1].destroy();
    editors.splice(editors.indexOf(held[1]), 1);
    await eventually(async () => {
      const e = open(other, ada);
      try {
        await synced(e);
      } catch (error) {
        e.destroy();
        editors.splice(editors.indexOf(e), 1);
        throw error;
      }
    });
  });

  it(`takes a burst of ${BURST} messages, and closes the socket with a reason at the one past it`, async () => {
    // Without awareness the provider sends nothing of its own once synced.
    const e = await synced(open(collabUrl(t), bob, { awareness: null }));
    // The few messages of connecting (auth, sync) are paid back at RATE per second.
    await new Promise((resolve) => setTimeout(resolve, (5 / RATE) * 1000));
    for (let i = 0; i < BURST; i++) typeInto(e, 'x');
    await settled(e);
    expect(e.closes).toEqual([]);
    typeInto(e, 'y');
    await eventually(() => expect(tooManyUpdates(e)).toBe(true));
    // The server took the burst, not the one past it.
    const observer = await synced(open(collabUrl(t), ada));
    expect(firstText(observer.doc).toString()).toContain(`start${'x'.repeat(BURST)}`);
  });

  it('never disconnects a fast typist at the default rate; a flood is disconnected and loses nothing', async () => {
    const url = await startReplica({
      COLLAB_CONNECTIONS_PER_USER: undefined,
      COLLAB_UPDATES_PER_SECOND: undefined,
      COLLAB_UPDATES_BURST: undefined,
    });
    const doc = await createDocument(t, ada, { workspaceId: ws, title: 'Typing', content: [paragraph('>')] });
    const typist = await synced(open(url, bob, {}, doc.id));
    const observer = await synced(open(url, ada, {}, doc.id));
    const clock = () => new Promise((resolve) => setTimeout(resolve, 1000 / 15));
    // 3 s at 15 keys a second, the cursor moving with each (an awareness update, as the editor
    // sends), then a key held down for 2 s (33 repeats a second).
    let typed = '>';
    for (let i = 0; i < 45; i++) {
      typeInto(typist, 'a');
      typist.provider.setAwarenessField('cursor', { at: i });
      typed += 'a';
      await clock();
    }
    for (let i = 0; i < 66; i++) {
      typeInto(typist, 'b');
      typist.provider.setAwarenessField('cursor', { at: 45 + i });
      typed += 'b';
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    await settled(typist);
    expect(typist.closes).toEqual([]);
    await eventually(() => expect(firstText(observer.doc).toString()).toBe(typed));

    // A flood: far past the burst at once. The socket is closed with the reason; the provider
    // comes back by itself and its sync brings what the server dropped.
    const flooder = await synced(open(url, bob, {}, doc.id));
    for (let i = 0; i < DEFAULT_COLLAB_SETTINGS.updatesBurst * 3; i++) typeInto(flooder, 'c');
    await eventually(() => expect(tooManyUpdates(flooder)).toBe(true));
    expect(observer.closes).toEqual([]);
    await eventually(() => expect(firstText(observer.doc).toString()).toBe(firstText(flooder.doc).toString()), {
      timeoutMs: 20_000,
    });
    expect(firstText(observer.doc).toString()).toMatch(/c{1500}$/);
  });
});
