import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Config } from '@wiki/config';
import {
  type CollabEditor,
  collabUrl,
  connectEditor,
  createDocument,
  eventually,
  paragraph,
  paragraphWithId,
  restDocument,
  type SignedInUser,
  type Stack,
  signInNew,
  synced,
  typeParagraph,
  workspaceWith,
} from '@wiki/testing';
import WebSocket from 'ws';
import { startPlatform } from '../../../test/platform.js';
import { type RunningCollab, startService as startCollab } from '../src/service.js';

/** A replica's configuration that stores a room only after a minute (COLLAB_DEBOUNCE_MS). */
const storingAfterAMinute = (config: Config): Config => ({
  ...config,
  env: { ...config.env, COLLAB_DEBOUNCE_MS: '60000', COLLAB_MAX_DEBOUNCE_MS: '60000' },
});

/** Two collaboration replicas started by the test itself (so it can stop and replace one). */
describe('collaboration replicas and restarts', () => {
  let t: Stack;
  let owner: SignedInUser;
  let editor: SignedInUser;
  let ws: string;
  const editors: CollabEditor[] = [];
  const replicas: RunningCollab[] = [];

  const startReplica = async () => {
    const replica = await startCollab(t.config);
    await replica.app.listen({ port: 0, host: '127.0.0.1' });
    replicas.push(replica);
    return { replica, url: `ws://127.0.0.1:${(replica.app.server.address() as AddressInfo).port}/collab` };
  };
  const open = (url: string, doc: string, as: SignedInUser) => {
    const e = connectEditor(url, doc, as.token);
    editors.push(e);
    return synced(e);
  };

  beforeAll(async () => {
    t = await startPlatform(['workspace', 'document'], {
      env: { COLLAB_DEBOUNCE_MS: '50', COLLAB_MAX_DEBOUNCE_MS: '300' },
    });
    [owner, editor] = await Promise.all(['Olivia Owner', 'Eddie Editor'].map((n) => signInNew(t, n)));
    ws = (await workspaceWith(t, owner, [[editor, 'EDITOR']])).id;
  });
  afterEach(() => {
    for (const e of editors.splice(0)) e.destroy();
  });
  afterAll(async () => {
    for (const replica of replicas) await replica.stop().catch(() => undefined);
    await t?.stop();
  });

  it('clients on two replicas converge, and a REST write reaches both once', async () => {
    const [a, b] = [await startReplica(), await startReplica()];
    const doc = await createDocument(t, owner, { workspaceId: ws, title: 'Spread', content: [paragraph('base')] });
    const one = await open(a.url, doc.id, owner);
    const two = await open(b.url, doc.id, editor);
    typeParagraph(one.doc, 'on replica A');
    typeParagraph(two.doc, 'on replica B');
    await eventually(() => {
      expect(one.text()).toBe(two.text());
      expect(one.text().split('\n').sort()).toEqual(['base', 'on replica A', 'on replica B']);
    });
    await eventually(async () => {
      const content = (await restDocument(t, owner.token, doc.id)).content;
      expect(content).toContain('on replica A');
      expect(content).toContain('on replica B');
    });

    const put = await t.request('PUT', `/api/v1/documents/${doc.id}`, {
      token: owner.token,
      body: { content: [paragraph('replaced over REST')] },
    });
    expect(put.status).toBe(200);
    await eventually(() => {
      expect(one.text()).toBe('replaced over REST');
      expect(two.text()).toBe('replaced over REST');
    });
    typeParagraph(two.doc, 'after the write, on B');
    await eventually(() => expect(one.text()).toBe('replaced over REST\nafter the write, on B'));
    await eventually(async () =>
      expect((await restDocument(t, owner.token, doc.id)).content).toContain('after the write, on B'),
    );
    // A replica that opens the room later gets the same single copy.
    const late = await open(a.url, doc.id, editor);
    expect(late.text()).toBe('replaced over REST\nafter the write, on B');
    for (const replica of [a, b]) {
      await replica.replica.stop();
      replicas.splice(replicas.indexOf(replica.replica), 1);
    }
  });

  it('a replica that dies before storing loses nothing its peer holds, and awareness crosses replicas', async () => {
    // Replica A stores only after a minute: it will die first.
    const slow = await startCollab(storingAfterAMinute(t.config));
    await slow.app.listen({ port: 0, host: '127.0.0.1' });
    replicas.push(slow);
    const aUrl = `ws://127.0.0.1:${(slow.app.server.address() as AddressInfo).port}/collab`;
    const b = await startReplica();
    const doc = await createDocument(t, owner, { workspaceId: ws, title: 'Fragile', content: [paragraph('base')] });
    const onA = await open(aUrl, doc.id, owner);
    const onB = await open(b.url, doc.id, editor);
    typeParagraph(onA.doc, 'only in memory on A');
    onA.provider.setAwarenessField('user', { name: 'Not Olivia', color: '#00ff00' });
    await eventually(() => expect(onB.text()).toContain('only in memory on A'));
    await eventually(() => {
      const fromA = onB.provider.awareness!.getStates().get(onA.doc.clientID);
      expect(fromA?.user).toEqual({ id: owner.id, name: 'Olivia Owner', color: '#00ff00' });
    });

    // A dies without storing (its stores are cut off, then it stops).
    (slow.server as unknown as { store: () => Promise<void> }).store = async () => undefined;
    onA.destroy();
    await slow.stop();
    replicas.splice(replicas.indexOf(slow), 1);
    expect((await restDocument(t, owner.token, doc.id)).content).not.toContain('only in memory on A');

    // B held A's update; closing the room there stores it.
    onB.destroy();
    await eventually(async () =>
      expect((await restDocument(t, owner.token, doc.id)).content).toContain('only in memory on A'),
    );
    await b.replica.stop();
    replicas.splice(replicas.indexOf(b.replica), 1);
  });

  it('a replica that is stopped stores its rooms first, editors still connected', async () => {
    const slow = await startCollab(storingAfterAMinute(t.config));
    await slow.app.listen({ port: 0, host: '127.0.0.1' });
    replicas.push(slow);
    const url = `ws://127.0.0.1:${(slow.app.server.address() as AddressInfo).port}/collab`;
    const doc = await createDocument(t, owner, { workspaceId: ws, title: 'Stopped', content: [paragraph('base')] });
    const e = await open(url, doc.id, editor);
    typeParagraph(e.doc, 'typed just before the stop');
    await eventually(() => expect(slow.server.rooms.get(doc.id)?.lastEditorId).toBe(editor.id));
    expect((await restDocument(t, owner.token, doc.id)).content).not.toContain('typed just before the stop');
    await slow.stop();
    replicas.splice(replicas.indexOf(slow), 1);
    expect((await restDocument(t, owner.token, doc.id)).content).toContain('typed just before the stop');
  });

  it('a replica that is stopping refuses new editors from its first step, while open ones go on until their rooms are stored', async () => {
    const leaving = await startCollab({ ...t.config, shutdownDelayMs: 1_500 });
    await leaving.app.listen({ port: 0, host: '127.0.0.1' });
    replicas.push(leaving);
    const url = `ws://127.0.0.1:${(leaving.app.server.address() as AddressInfo).port}/collab`;
    const doc = await createDocument(t, owner, { workspaceId: ws, title: 'Leaving', content: [paragraph('base')] });
    const e = await open(url, doc.id, editor);

    const stopping = leaving.stop();
    // During SHUTDOWN_DELAY_MS: not ready, no new upgrade, while the open editor still edits.
    const upgrade = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.on('open', () => reject(new Error('a stopping replica took a new connection')));
      socket.on('error', () => undefined);
    });
    expect(upgrade).toBe(503);
    typeParagraph(e.doc, 'typed while the replica leaves');
    await eventually(() => expect(leaving.server.rooms.get(doc.id)?.lastEditorId).toBe(editor.id));

    await stopping;
    replicas.splice(replicas.indexOf(leaving), 1);
    expect((await restDocument(t, owner.token, doc.id)).content).toContain('typed while the replica leaves');
  });

  it('a room survives a restart of the collaboration server; opening and leaving without edits writes nothing', async () => {
    const first = await startReplica();
    t.config.urls.collab = first.replica.app.listeningOrigin;
    const doc = await createDocument(t, owner, { workspaceId: ws, title: 'Durable', content: [paragraph('kept')] });

    const idle = await open(collabUrl(t), doc.id, editor);
    idle.destroy();
    const state = await t.request('GET', `/api/v1/internal/documents/${doc.id}/collab-state`, {
      headers: { 'x-internal-api-key': t.config.internalApiKey },
    });
    expect(state.status).toBe(204);
    expect((await restDocument(t, owner.token, doc.id)).lastEditedBy).toBe(owner.id);

    const e = await open(collabUrl(t), doc.id, editor);
    typeParagraph(e.doc, 'written before the restart');
    await eventually(async () =>
      expect((await restDocument(t, owner.token, doc.id)).content).toContain('written before the restart'),
    );
    expect((await restDocument(t, owner.token, doc.id)).lastEditedBy).toBe(editor.id);
    e.destroy();
    await first.replica.stop();
    replicas.splice(replicas.indexOf(first.replica), 1);

    const second = await startReplica();
    t.config.urls.collab = second.replica.app.listeningOrigin;
    const again = await open(collabUrl(t), doc.id, owner);
    expect(again.text()).toBe('kept\nwritten before the restart');
    const stored = await t.request('GET', `/api/v1/internal/documents/${doc.id}/collab-state`, {
      headers: { 'x-internal-api-key': t.config.internalApiKey },
    });
    expect(stored.status).toBe(200);
  });

  /** How often `text` occurs in `within`. */
  const timesIn = (within: string, text: string) => within.split(text).length - 1;
  /** Top-level nodes of the room's fragment: one blockGroup unless the document was doubled. */
  const topLevel = (e: CollabEditor) => e.doc.getXmlFragment('document-store').length;

  it('a replica that opens a room its peer holds unsaved takes the peer’s copy: what was typed there survives, once, at both', async () => {
    const slow = await startCollab(storingAfterAMinute(t.config));
    await slow.app.listen({ port: 0, host: '127.0.0.1' });
    replicas.push(slow);
    const aUrl = `ws://127.0.0.1:${(slow.app.server.address() as AddressInfo).port}/collab`;
    const b = await startReplica();
    const [alpha, xray] = [paragraphWithId(randomUUID(), 'alpha'), paragraphWithId(randomUUID(), 'xray')];
    const doc = await createDocument(t, owner, { workspaceId: ws, title: 'Once', content: [alpha] });
    const onA = await open(aUrl, doc.id, owner);
    // A takes the write into its room block by block and what its editor types; it stores a minute later.
    const put = await t.request('PUT', `/api/v1/documents/${doc.id}`, {
      token: owner.token,
      body: { content: [alpha, xray] },
    });
    expect(put.status).toBe(200);
    await eventually(() => expect(onA.text()).toBe('alpha\nxray'));
    typeParagraph(onA.doc, 'typed on A');
    await eventually(() => expect(slow.server.rooms.get(doc.id)?.lastEditorId).toBe(owner.id));

    // The stored state is stale: B takes A's room rather than building one from the content.
    const onB = await open(b.url, doc.id, editor);
    expect(onB.text()).toBe('alpha\nxray\ntyped on A');
    expect(topLevel(onB)).toBe(1);
    expect(b.replica.server.rooms.get(doc.id)?.revision).toBe(slow.server.rooms.get(doc.id)?.revision);
    typeParagraph(onB.doc, 'typed on B');
    typeParagraph(onA.doc, 'more on A');
    await eventually(() => {
      expect(onA.text().split('\n').sort()).toEqual(['alpha', 'more on A', 'typed on A', 'typed on B', 'xray']);
      expect(onB.text()).toBe(onA.text());
    });
    expect([topLevel(onA), topLevel(onB)]).toEqual([1, 1]);

    // B stores what its editor typed (with A's text, which its room holds); A stores on its stop.
    onB.destroy();
    onA.destroy();
    await slow.stop();
    replicas.splice(replicas.indexOf(slow), 1);
    await eventually(async () => {
      const content = (await restDocument(t, owner.token, doc.id)).content;
      for (const text of ['alpha', 'xray', 'typed on A', 'typed on B', 'more on A']) {
        expect(timesIn(content, text)).toBe(1);
      }
    });
    await b.replica.stop();
    replicas.splice(replicas.indexOf(b.replica), 1);
  });

  it('two replicas that build a room from the same content at once make the same items: it is there once', async () => {
    // Neither asks the other (COLLAB_PEER_WAIT_MS=0), as when both open the room before either holds it.
    const notAsking = { ...t.config, env: { ...t.config.env, COLLAB_PEER_WAIT_MS: '0' } };
    const [a, b] = [await startCollab(notAsking), await startCollab(notAsking)];
    replicas.push(a, b);
    const [aUrl, bUrl] = await Promise.all(
      [a, b].map(async (replica) => {
        await replica.app.listen({ port: 0, host: '127.0.0.1' });
        return `ws://127.0.0.1:${(replica.app.server.address() as AddressInfo).port}/collab`;
      }),
    );
    const doc = await createDocument(t, owner, {
      workspaceId: ws,
      title: 'Together',
      content: [paragraph('first'), paragraph('second')],
    });
    const [onA, onB] = await Promise.all([open(aUrl, doc.id, owner), open(bUrl, doc.id, editor)]);
    expect([onA.text(), onB.text()]).toEqual(['first\nsecond', 'first\nsecond']);
    typeParagraph(onA.doc, 'typed on A');
    typeParagraph(onB.doc, 'typed on B');
    await eventually(() => {
      expect(onA.text().split('\n').sort()).toEqual(['first', 'second', 'typed on A', 'typed on B']);
      expect(onB.text()).toBe(onA.text());
    });
    expect([topLevel(onA), topLevel(onB)]).toEqual([1, 1]);
    await eventually(async () => {
      const content = (await restDocument(t, owner.token, doc.id)).content;
      for (const text of ['first', 'second', 'typed on A', 'typed on B']) expect(timesIn(content, text)).toBe(1);
    });
    for (const replica of [a, b]) {
      await replica.stop();
      replicas.splice(replicas.indexOf(replica), 1);
    }
  });
});
