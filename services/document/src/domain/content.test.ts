import { AppError } from '@wiki/http';
import { describe, expect, it } from 'vitest';
import { jsonDepth, MAX_CONTENT_BYTES, MAX_CONTENT_DEPTH, parseContent } from './content.js';

const para = (t: string) => ({ type: 'paragraph', content: [{ type: 'text', text: t, styles: {} }] });

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('content parsing', () => {
  it('accepts an array and a string holding one, and stores the same canonical JSON', () => {
    const blocks = [para('hello')];
    const fromArray = parseContent(blocks);
    const fromString = parseContent(`  ${JSON.stringify(blocks, null, 2)} `);
    expect(fromArray.json).toBe(JSON.stringify(blocks));
    expect(fromString.json).toBe(fromArray.json);
    expect(parseContent('').json).toBe('[]');
    expect(parseContent([]).json).toBe('[]');
  });

  it('refuses what is not an array of blocks', () => {
    expect(refusal(() => parseContent('{"type":"paragraph"}')).code).toBe('VALIDATION_ERROR');
    expect(refusal(() => parseContent('not json')).details).toEqual([
      { field: 'content', message: 'must be a JSON array of blocks' },
    ]);
    expect(refusal(() => parseContent({ blocks: [] })).code).toBe('VALIDATION_ERROR');
    expect(refusal(() => parseContent([{ content: [] }])).details?.[0].field).toBe('content[0].type');
    expect(refusal(() => parseContent([para('a'), 'b'])).details?.[0].field).toBe('content[1]');
    expect(refusal(() => parseContent([{ type: 'p', children: {} }])).details?.[0].field).toBe('content[0].children');
    expect(refusal(() => parseContent([{ type: 'p', children: [{ type: 1 }] }])).details?.[0].field).toBe(
      'content[0].children[0].type',
    );
    expect(refusal(() => parseContent([{ type: 'p', props: [] }])).details?.[0].field).toBe('content[0].props');
  });

  it('refuses content over 2 MiB with 413, as an array or a string', () => {
    const big = [para('x'.repeat(MAX_CONTENT_BYTES))];
    expect(refusal(() => parseContent(big)).statusCode).toBe(413);
    expect(refusal(() => parseContent(JSON.stringify(big))).statusCode).toBe(413);
    // Just under the limit passes.
    const overhead = JSON.stringify([para('')]).length;
    expect(parseContent([para('x'.repeat(MAX_CONTENT_BYTES - overhead))]).json.length).toBe(MAX_CONTENT_BYTES);
  });

  it('refuses nesting deeper than the limit without overflowing the stack', () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonDepth(deep, MAX_CONTENT_DEPTH)).toBeGreaterThan(MAX_CONTENT_DEPTH);
    expect(refusal(() => parseContent([{ type: 'p', content: deep }])).code).toBe('VALIDATION_ERROR');
    expect(jsonDepth([{ a: [1] }])).toBe(3);
  });
});
