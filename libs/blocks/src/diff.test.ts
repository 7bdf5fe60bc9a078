import { describe, expect, it } from 'vitest';
import type { Block } from './block.js';
import { sameJson } from './block.js';
import { diffBlocks, flattenBlocks, wordOps } from './diff.js';

const p = (id: string | undefined, text: string, extra: Partial<Block> = {}): Block => ({
  ...(id === undefined ? {} : { id }),
  type: 'paragraph',
  props: { textColor: 'default' },
  content: [{ type: 'text', text, styles: {} }],
  children: [],
  ...extra,
});

describe('flattenBlocks', () => {
  it('lists nested blocks after their parent, each with the key of its parent', () => {
    const flat = flattenBlocks([
      p('a', 'top', { children: [p('b', 'child', { children: [p('c', 'grandchild')] })] }),
      p('d', 'next'),
    ]);
    expect(flat.map((b) => [b.key, b.parentKey, (b.block.content as Array<{ text: string }>)[0]!.text])).toEqual([
      ['a', null, 'top'],
      ['b', 'a', 'child'],
      ['c', 'b', 'grandchild'],
      ['d', null, 'next'],
    ]);
  });
});

describe('wordOps', () => {
  it('gives word-level equal, delete and insert ops that rebuild both texts', () => {
    const ops = wordOps('the quick brown fox', 'the slow brown fox jumps');
    expect(
      ops
        .filter((o) => o.op !== 'insert')
        .map((o) => o.text)
        .join(''),
    ).toBe('the quick brown fox');
    expect(
      ops
        .filter((o) => o.op !== 'delete')
        .map((o) => o.text)
        .join(''),
    ).toBe('the slow brown fox jumps');
    expect(ops).toContainEqual({ op: 'delete', text: 'quick' });
    expect(ops).toContainEqual({ op: 'insert', text: 'slow' });
    expect(ops.some((o, i) => i > 0 && ops[i - 1]!.op === o.op)).toBe(false);
  });

  it('gives one equal op for equal texts, none for two empty ones', () => {
    expect(wordOps('same', 'same')).toEqual([{ op: 'equal', text: 'same' }]);
    expect(wordOps('', '')).toEqual([]);
    expect(wordOps('', 'new words')).toEqual([{ op: 'insert', text: 'new words' }]);
  });
});

describe('diffBlocks', () => {
  it('finds added, removed, changed and moved blocks, and nothing for equal documents', () => {
    const from = [p('a', 'alpha'), p('b', 'bravo'), p('c', 'charlie'), p('d', 'delta')];
    expect(diffBlocks(from, from)).toEqual([]);
    const to = [p('d', 'delta'), p('a', 'alpha'), p('c', 'charlie was here'), p('e', 'echo')];
    expect(diffBlocks(from, to)).toEqual([
      { blockId: 'd', change: 'moved' },
      { blockId: 'b', change: 'removed' },
      {
        blockId: 'c',
        change: 'changed',
        text: [
          { op: 'equal', text: 'charlie' },
          { op: 'insert', text: ' was here' },
        ],
      },
      { blockId: 'e', change: 'added' },
    ]);
  });

  it('counts a change of type or props as changed, with the text all equal', () => {
    const diff = diffBlocks([p('a', 'title')], [{ ...p('a', 'title'), type: 'heading', props: { level: 2 } }]);
    expect(diff).toEqual([{ blockId: 'a', change: 'changed', text: [{ op: 'equal', text: 'title' }] }]);
  });

  it('compares blocks, not key order or children: a parent whose child changed is unchanged', () => {
    const from = [p('a', 'parent', { children: [p('b', 'old child')] })];
    const reordered = [
      {
        children: [p('b', 'new child')],
        content: from[0]!.content,
        props: { textColor: 'default' },
        type: 'paragraph',
        id: 'a',
      },
    ];
    expect(diffBlocks(from, reordered)).toEqual([
      {
        blockId: 'b',
        change: 'changed',
        text: [
          { op: 'delete', text: 'old' },
          { op: 'insert', text: 'new' },
          { op: 'equal', text: ' child' },
        ],
      },
    ]);
  });

  it('calls a nested block that went to another parent moved, and lists removed children', () => {
    const from = [p('a', 'one', { children: [p('x', 'nested'), p('y', 'gone')] }), p('b', 'two')];
    const to = [p('a', 'one'), p('b', 'two', { children: [p('x', 'nested')] })];
    expect(diffBlocks(from, to)).toEqual([
      { blockId: 'x', change: 'moved' },
      { blockId: 'y', change: 'removed' },
    ]);
  });

  it('lists everything as added from an empty document and removed to one', () => {
    const doc = [p('a', 'one'), p('b', 'two')];
    expect(diffBlocks([], doc)).toEqual([
      { blockId: 'a', change: 'added' },
      { blockId: 'b', change: 'added' },
    ]);
    expect(diffBlocks(doc, [])).toEqual([
      { blockId: 'a', change: 'removed' },
      { blockId: 'b', change: 'removed' },
    ]);
    expect(diffBlocks([], [])).toEqual([]);
  });

  it('pairs duplicate ids in order and matches id-less blocks by their place among them', () => {
    const from = [p('dup', 'first'), p('dup', 'second'), p(undefined, 'no id')];
    const to = [p('dup', 'first'), p('dup', 'second, edited'), p(undefined, 'no id, edited')];
    expect(diffBlocks(from, to)).toEqual([
      {
        blockId: 'dup',
        change: 'changed',
        text: [
          { op: 'equal', text: 'second' },
          { op: 'insert', text: ', edited' },
        ],
      },
      {
        blockId: '#0',
        change: 'changed',
        text: [
          { op: 'equal', text: 'no id' },
          { op: 'insert', text: ', edited' },
        ],
      },
    ]);
  });

  it('reads the text of tables and captions the way plain text does', () => {
    const table = (cell: string): Block => ({
      id: 't',
      type: 'table',
      content: { type: 'tableContent', rows: [{ cells: [[{ type: 'text', text: cell, styles: {} }], 'b'] }] },
    });
    expect(diffBlocks([table('a')], [table('z')])).toEqual([
      {
        blockId: 't',
        change: 'changed',
        text: [
          { op: 'delete', text: 'a' },
          { op: 'insert', text: 'z' },
          { op: 'equal', text: '\tb' },
        ],
      },
    ]);
  });
});

describe('sameJson', () => {
  it('compares JSON values whatever the key order, leaving undefined keys and skipped top-level keys out', () => {
    expect(sameJson({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1, u: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameJson({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson({ a: [] }, { a: {} })).toBe(false);
    expect(sameJson(null, {})).toBe(false);
    expect(sameJson({ id: 'x', t: 1, children: [1] }, { id: 'y', t: 1 }, new Set(['id', 'children']))).toBe(true);
  });
});
