import { Readable } from 'node:stream';
import { ndjsonLines } from './document-stream.js';

describe('ndjsonLines', () => {
  /** A body whose chunks are one byte each, so every line and every character is split. */
  async function* byteByByte(text: string): AsyncGenerator<Uint8Array> {
    for (const byte of Buffer.from(text)) yield Uint8Array.of(byte);
  }

  async function lines(body: AsyncIterable<Uint8Array | string>): Promise<string[]> {
    const out: string[] = [];
    for await (const line of ndjsonLines(body)) out.push(line);
    return out;
  }

  it('gives whole lines and whole characters when the bytes arrive one at a time', async () => {
    const text = '{"t":"café 😀"}\n{"t":"深度学习模型"}\n\n{"t":"last, no newline"}';
    expect(await lines(byteByByte(text))).toEqual([
      '{"t":"café 😀"}',
      '{"t":"深度学习模型"}',
      '{"t":"last, no newline"}',
    ]);
  });

  it('splits many lines that come in one chunk', async () => {
    expect(await lines(Readable.from([Buffer.from('a\nb\nc\n')], { objectMode: false }))).toEqual(['a', 'b', 'c']);
  });
});
