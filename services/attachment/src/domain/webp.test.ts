import { isLosslessWebp } from './webp.js';

/** A RIFF/WEBP file of these chunks (tag and payload). */
function webp(...chunks: [string, Buffer][]): Buffer {
  const body = chunks.map(([tag, data]) => {
    const head = Buffer.alloc(8);
    head.write(tag, 0, 'latin1');
    head.writeUInt32LE(data.length, 4);
    return Buffer.concat([head, data, Buffer.alloc(data.length % 2)]);
  });
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(4 + body.reduce((n, b) => n + b.length, 0), 4);
  riff.write('WEBP', 8, 'latin1');
  return Buffer.concat([riff, ...body]);
}

describe('isLosslessWebp', () => {
  it('tells a simple lossless file from a lossy one', () => {
    expect(isLosslessWebp(webp(['VP8L', Buffer.alloc(20)]))).toBe(true);
    expect(isLosslessWebp(webp(['VP8 ', Buffer.alloc(20)]))).toBe(false);
  });

  it('walks past the extended header, a colour profile and an odd-sized chunk', () => {
    const extended = webp(['VP8X', Buffer.alloc(10)], ['ICCP', Buffer.alloc(3001)], ['VP8L', Buffer.alloc(9)]);
    expect(isLosslessWebp(extended)).toBe(true);
    expect(isLosslessWebp(webp(['VP8X', Buffer.alloc(10)], ['ALPH', Buffer.alloc(7)], ['VP8 ', Buffer.alloc(9)]))).toBe(
      false,
    );
  });

  it('looks into the first frame of an animation', () => {
    const frame = (tag: string) => {
      const inner = webp([tag, Buffer.alloc(12)]).subarray(12);
      return Buffer.concat([Buffer.alloc(16), inner]);
    };
    const animated = (tag: string) => webp(['VP8X', Buffer.alloc(10)], ['ANIM', Buffer.alloc(6)], ['ANMF', frame(tag)]);
    expect(isLosslessWebp(animated('VP8L'))).toBe(true);
    expect(isLosslessWebp(animated('VP8 '))).toBe(false);
  });

  it('says lossy for a head cut short or not a WebP', () => {
    expect(isLosslessWebp(Buffer.from('RIFF'))).toBe(false);
    expect(isLosslessWebp(webp(['VP8X', Buffer.alloc(10)]).subarray(0, 30))).toBe(false);
  });
});
