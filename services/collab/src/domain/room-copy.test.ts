import { decodeRoomCopy, encodeRoomCopy, type RoomCopy } from './room-copy.js';

describe('a room copy between replicas', () => {
  const copy: RoomCopy = {
    view: {
      base: [{ id: 'b1', hash: 'h1' }, { hash: 'h2' }],
      lastJson: '[{"id":"b1","type":"paragraph"}]',
      savedHash: 'abc',
      sawContent: true,
    },
    state: new Uint8Array([1, 2, 3, 0, 255]),
  };

  it('reads back what was written', () => {
    expect(decodeRoomCopy(encodeRoomCopy(copy))).toEqual(copy);
  });

  it('is refused when it is not one: junk, a view without its fields, bytes left over', () => {
    expect(decodeRoomCopy(new Uint8Array([200, 1, 2]))).toBeUndefined();
    const withoutBase = { ...copy, view: { ...copy.view, base: 'no' } } as unknown as RoomCopy;
    expect(decodeRoomCopy(encodeRoomCopy(withoutBase))).toBeUndefined();
    const badPrint = { ...copy, view: { ...copy.view, base: [{ id: 3, hash: 'h' }] } } as unknown as RoomCopy;
    expect(decodeRoomCopy(encodeRoomCopy(badPrint))).toBeUndefined();
    const longer = new Uint8Array([...encodeRoomCopy(copy), 9]);
    expect(decodeRoomCopy(longer)).toBeUndefined();
  });
});
