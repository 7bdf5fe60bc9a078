import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { forceAwarenessUser } from './awareness.js';

function awarenessMessage(doc: string, states: Array<[number, number, string]>, type = 1): Uint8Array {
  const inner = encoding.createEncoder();
  encoding.writeVarUint(inner, states.length);
  for (const [client, clock, state] of states) {
    encoding.writeVarUint(inner, client);
    encoding.writeVarUint(inner, clock);
    encoding.writeVarString(inner, state);
  }
  const outer = encoding.createEncoder();
  encoding.writeVarString(outer, doc);
  encoding.writeVarUint(outer, type);
  encoding.writeVarUint8Array(outer, encoding.toUint8Array(inner));
  return encoding.toUint8Array(outer);
}

function statesOf(message: Uint8Array): Array<[number, number, unknown]> {
  const d = decoding.createDecoder(message);
  decoding.readVarString(d);
  decoding.readVarUint(d);
  const u = decoding.createDecoder(decoding.readVarUint8Array(d));
  const n = decoding.readVarUint(u);
  const out: Array<[number, number, unknown]> = [];
  for (let i = 0; i < n; i += 1) {
    out.push([decoding.readVarUint(u), decoding.readVarUint(u), JSON.parse(decoding.readVarString(u))]);
  }
  return out;
}

describe('forceAwarenessUser', () => {
  const ada = { id: 'u-ada', name: 'Ada' };

  it('replaces a claimed identity with the authenticated one, keeping the colour and other fields', () => {
    const forged = JSON.stringify({ user: { id: 'u-boss', name: 'The Boss', color: '#f00' }, cursor: { a: 1 } });
    const out = forceAwarenessUser(awarenessMessage('doc-1', [[7, 3, forged]]), (doc) =>
      doc === 'doc-1' ? ada : undefined,
    );
    expect(statesOf(out)).toEqual([[7, 3, { cursor: { a: 1 }, user: { id: 'u-ada', name: 'Ada', color: '#f00' } }]]);
  });

  it('adds the identity when none is claimed, drops a colour that is not a short string, keeps a leave (null)', () => {
    const out = forceAwarenessUser(
      awarenessMessage('doc-1', [
        [1, 1, '{}'],
        [2, 1, JSON.stringify({ user: { color: 'x'.repeat(500) } })],
        [3, 2, 'null'],
      ]),
      () => ada,
    );
    expect(statesOf(out)).toEqual([
      [1, 1, { user: ada }],
      [2, 1, { user: ada }],
      [3, 2, null],
    ]);
  });

  it('names nobody before authentication and leaves other message types alone', () => {
    const before = forceAwarenessUser(awarenessMessage('doc-1', [[1, 1, '{"user":{"name":"Eve"}}']]), () => undefined);
    expect(statesOf(before)).toEqual([[1, 1, {}]]);
    const sync = awarenessMessage('doc-1', [[1, 1, '{}']], 0);
    expect(forceAwarenessUser(sync, () => ada)).toBe(sync);
  });
});
