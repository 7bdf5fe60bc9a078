import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import {
  type CollabEditor,
  collabUrl,
  connectEditor,
  createDocument,
  eventually,
  paragraphWithId,
  restDocument,
  type SignedInUser,
  type Stack,
  signInNew,
  storedTexts,
  synced,
  typeInto,
  workspaceWith,
} from '@wiki/testing';
import { startPlatform } from '../../../test/platform.js';
import { type RunningCollab, startService as startCollab } from '../src/service.js';

/**
 * REST writes taken into open rooms block by block (ARCHITECTURE 5.16): what someone types in a
 * block the write did not touch survives, in the room and in the stored document. Rooms store
 * after 1.5 s of quiet here, so typing is still unsaved when the write lands.
 */
describe('REST writes reach open rooms block by block', () => {
  let t: Stack;
  let owner: SignedInUser;
  let editor: SignedInUser;
  let ws: string;
  const editors: CollabEditor[] = [];
  const replicas: RunningCollab[] = [];

  const open = (url: string, doc: string, as: SignedInUser) => {
    const e = connectEditor(url, doc, as.token);
    editors.push(e);
    return synced(e);
  };
  const ids = (n: number) => Array.from({ length: n }, () => randomUUID());
  const newDoc = async (blocks: Array<[string, string]>) =>
    (
      await createDocument(t, owner, {
        workspaceId: ws,
        title: 'Blocks',
        content: blocks.map(([id, text]) => paragraphWithId(id, text)),
      })
    ).id;
  const put = async (doc: string, blocks: Array<[string, string]>) => {
    const res = await t.request('PUT', `/api/v1/documents/${doc}`, {
      token: owner.token,
      body: { content: blocks.map(([id, text]) => paragraphWithId(id, text)) },
    });
    expect(res.status).toBe(200);
  };
  const stored = async (doc: string) => storedTexts((await restDocument(t, owner.token, doc)).content);

  beforeAll(async () => {
    t = await startPlatform(['workspace', 'document', 'collab'], {
      env: { COLLAB_DEBOUNCE_MS: '1500', COLLAB_MAX_DEBOUNCE_MS: '3000' },
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

  it('a PUT that changes one block keeps what is being typed in another, in the room and once stored', async () => {
    const [a, b, c] = ids(3);
    const doc = await newDoc([
      [a!, 'alpha'],
      [b!, 'bravo'],
      [c!, 'charlie'],
    ]);
    const e = await open(collabUrl(t), doc, editor);
    typeInto(e.doc, a!, ' typing');
    await put(doc, [
      [a!, 'alpha'],
      [b!, 'bravo rewritten over REST'],
      [c!, 'charlie'],
    ]);
    typeInto(e.doc, a!, ' on');
    await eventually(() => expect(e.text()).toBe('alpha typing on\nbravo rewritten over REST\ncharlie'));
    await eventually(async () =>
      expect(await stored(doc)).toEqual(['alpha typing on', 'bravo rewritten over REST', 'charlie']),
    );
    expect(e.text()).toBe('alpha typing on\nbravo rewritten over REST\ncharlie');
  });

  it('a PUT that appends blocks while someone types: both stay, the new blocks once and in order', async () => {
    const [a, b, x, y] = ids(4);
    const doc = await newDoc([
      [a!, 'first'],
      [b!, 'second'],
    ]);
    const e = await open(collabUrl(t), doc, editor);
    typeInto(e.doc, b!, ', still typing');
    await put(doc, [
      [a!, 'first'],
      [b!, 'second'],
      [x!, 'appended one'],
      [y!, 'appended two'],
    ]);
    typeInto(e.doc, b!, ' more');
    const expected = ['first', 'second, still typing more', 'appended one', 'appended two'];
    await eventually(() => expect(e.text()).toBe(expected.join('\n')));
    await eventually(async () => expect(await stored(doc)).toEqual(expected));
  });

  it('takes in removed and moved blocks, keeping the typing in a block that moved', async () => {
    const [a, b, c, d] = ids(4);
    const doc = await newDoc([
      [a!, 'A'],
      [b!, 'B'],
      [c!, 'C'],
      [d!, 'D'],
    ]);
    const e = await open(collabUrl(t), doc, editor);
    typeInto(e.doc, b!, ' typed');
    // Not yet stored: the write moves D to the front and removes C.
    await put(doc, [
      [d!, 'D'],
      [a!, 'A'],
      [b!, 'B'],
    ]);
    await eventually(() => expect(e.text()).toBe('D\nA\nB typed'));
    await eventually(async () => expect(await stored(doc)).toEqual(['D', 'A', 'B typed']));

    // A block the write moves takes along what was typed in it (once the room has it: an observer saw it).
    const observer = await open(collabUrl(t), doc, owner);
    typeInto(e.doc, d!, ' edited');
    await eventually(() => expect(observer.text()).toContain('D edited'));
    await put(doc, [
      [a!, 'A'],
      [b!, 'B typed'],
      [d!, 'D'],
    ]);
    await eventually(() => expect(e.text()).toBe('A\nB typed\nD edited'));
    await eventually(async () => expect(await stored(doc)).toEqual(['A', 'B typed', 'D edited']));
  });

  it('a block both changed: the write wins that block, the other blocks keep their typing', async () => {
    const [a, b] = ids(2);
    const doc = await newDoc([
      [a!, 'one'],
      [b!, 'two'],
    ]);
    const e = await open(collabUrl(t), doc, editor);
    typeInto(e.doc, a!, ' typed');
    typeInto(e.doc, b!, ' typed');
    // The typing is in the room (another editor saw it), not yet stored, when the write lands.
    const observer = await open(collabUrl(t), doc, owner);
    await eventually(() => expect(observer.text()).toBe('one typed\ntwo typed'));
    await put(doc, [
      [a!, 'one'],
      [b!, 'two, the write'],
    ]);
    await eventually(() => expect(e.text()).toBe('one typed\ntwo, the write'));
    await eventually(async () => expect(await stored(doc)).toEqual(['one typed', 'two, the write']));
  });

  it('two replicas with the room open both take the write without duplicating blocks', async () => {
    const startReplica = async () => {
      const replica = await startCollab(t.config);
      await replica.app.listen({ port: 0, host: '127.0.0.1' });
      replicas.push(replica);
      return `ws://127.0.0.1:${(replica.app.server.address() as AddressInfo).port}/collab`;
    };
    const [urlA, urlB] = [await startReplica(), await startReplica()];
    const [a, b, c, x] = ids(4);
    const doc = await newDoc([
      [a!, 'alpha'],
      [b!, 'bravo'],
      [c!, 'charlie'],
    ]);
    const one = await open(urlA, doc, owner);
    const two = await open(urlB, doc, editor);
    typeInto(one.doc, a!, ' from A');
    typeInto(two.doc, b!, ' from B');
    await eventually(() => expect(one.text()).toBe('alpha from A\nbravo from B\ncharlie'));
    await eventually(() => expect(two.text()).toBe(one.text()));

    // The write changes C and appends X; both replicas take it in at once.
    await put(doc, [
      [a!, 'alpha'],
      [b!, 'bravo'],
      [c!, 'charlie, rewritten'],
      [x!, 'xray, appended'],
    ]);
    typeInto(two.doc, b!, ' again');
    const expected = ['alpha from A', 'bravo from B again', 'charlie, rewritten', 'xray, appended'];
    await eventually(() => {
      expect(one.text()).toBe(expected.join('\n'));
      expect(two.text()).toBe(expected.join('\n'));
    });
    await eventually(async () => expect(await stored(doc)).toEqual(expected));
    // Settled: still one copy of each block on both sides.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(one.text()).toBe(expected.join('\n'));
    expect(two.text()).toBe(expected.join('\n'));
  });
});
