import { describe, expect, it } from 'vitest';
import { BLOCK_JSON_SCHEMA, blockProblem, parseContentJson } from './block-schema.js';

describe('block schema', () => {
  it('takes what the editor writes', () => {
    const blocks = [
      {
        id: 'a',
        type: 'heading',
        props: { level: 2, textColor: 'default' },
        content: [{ type: 'text', text: 'T', styles: {} }],
        children: [],
      },
      {
        type: 'paragraph',
        content: [
          { type: 'text', text: 'x', styles: { bold: true, textColor: 'red' } },
          { type: 'link', href: 'https://example.com', content: [{ type: 'text', text: 'l', styles: {} }] },
        ],
      },
      { type: 'checkListItem', props: { checked: true }, content: 'done' },
      { type: 'bulletListItem', content: 'a', children: [{ type: 'numberedListItem', content: 'b' }] },
      { type: 'codeBlock', props: { language: 'ts' }, content: [{ type: 'text', text: 'let a', styles: {} }] },
      { type: 'image', props: { url: 'https://example.com/a.png', caption: 'c' } },
      {
        type: 'table',
        content: {
          type: 'tableContent',
          rows: [{ cells: [[{ type: 'text', text: 'a', styles: {} }], { type: 'tableCell', content: [] }] }],
        },
      },
    ];
    expect(blockProblem(blocks)).toBeNull();
    expect(blockProblem(BLOCK_JSON_SCHEMA.examples[0])).toBeNull();
  });

  it('names the problem of a bad block', () => {
    expect(blockProblem({})).toBe('contentJson must be array');
    expect(blockProblem([{ type: 'heading1' }])).toMatch(/^contentJson\[0\]\.type must be one of "paragraph"/);
    expect(blockProblem([{ type: 'paragraph', content: [{ type: 'text', text: 'a', styles: { bold: 'yes' } }] }])).toBe(
      'contentJson[0].content[0].styles.bold must be boolean',
    );
    expect(blockProblem([{ type: 'heading', props: { level: 9 } }])).toBe(
      'contentJson[0].props.level must be one of 1, 2, 3, 4, 5, 6',
    );
    expect(blockProblem([{ type: 'paragraph', colour: 'red' }])).toBe(
      'contentJson[0] has an unknown property "colour"',
    );
    expect(blockProblem([{ type: 'paragraph', children: [{ text: 'x' }] }])).toBe(
      "contentJson[0].children[0] must have required property 'type'",
    );
    expect(blockProblem([{ type: 'paragraph', content: 5 }])).toBe('contentJson[0].content must be string,array');
    expect(blockProblem([{ type: 'divider', content: [{ type: 'text', text: 'x' }] }])).toBe(
      'contentJson[0].content must NOT have more than 0 items',
    );
  });

  it('parses a JSON string and says when it is not JSON', () => {
    expect(parseContentJson('[{"type":"paragraph","content":"hi"}]')).toEqual({
      blocks: [{ type: 'paragraph', content: 'hi' }],
    });
    expect(parseContentJson('[{')).toMatchObject({ problem: expect.stringMatching(/^contentJson is not valid JSON/) });
    expect(parseContentJson('"text"')).toEqual({ problem: 'contentJson must be array' });
  });
});
