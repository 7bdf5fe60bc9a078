import { describe, expect, it } from 'vitest';
import type { Block } from './block.js';
import { applyMergeOps, blockPrints, planMerge, planMergeOnPrints } from './merge.js';

const p = (id: string | undefined, text: string): Block => ({
  ...(id === undefined ? {} : { id }),
  type: 'paragraph',
  props: {},
  content: [{ type: 'text', text, styles: {} }],
  children: [],
});
/** A document written as "id:text" pairs (text defaults to the id). */
const doc = (...specs: string[]): Block[] =>
  specs.map((spec) => {
    const [id, text] = spec.split(':');
    return p(id, text ?? id!);
  });
const texts = (blocks: Block[]) =>
  blocks.map((b) => `${b.id ?? ''}:${(b.content as Array<{ text: string }>).map((c) => c.text).join('')}`);
const merged = (base: Block[], mine: Block[], theirs: Block[]) =>
  texts(applyMergeOps(mine, planMerge(base, mine, theirs)));

describe('planMerge', () => {
  it('makes no step when theirs changed nothing', () => {
    const base = doc('a', 'b');
    expect(planMerge(base, doc('a:typed', 'b', 'c'), base)).toEqual([]);
    expect(planMerge([], [], [])).toEqual([]);
  });

  it('takes in added blocks where theirs put them, keeping what mine typed in other blocks', () => {
    const base = doc('a', 'b');
    const mine = doc('a:a, typing', 'b', 'm:mine only');
    const theirs = doc('x:first', 'a', 'y:between', 'b', 'z:appended');
    expect(merged(base, mine, theirs)).toEqual([
      'x:first',
      'a:a, typing',
      'y:between',
      'b:b',
      'z:appended',
      'm:mine only',
    ]);
  });

  it('appends after the last block theirs had, chaining a run of new blocks', () => {
    const base = doc('a', 'b');
    const plan = planMerge(base, doc('a:typing in a', 'b'), doc('a', 'b', 'c', 'd'));
    expect(plan).toEqual([
      { op: 'insert', index: 2, block: p('c', 'c') },
      { op: 'insert', index: 3, block: p('d', 'd') },
    ]);
  });

  it('deletes what theirs removed, even a block mine changed', () => {
    const base = doc('a', 'b', 'c');
    expect(merged(base, doc('a', 'b:b edited by mine', 'c:c edited too'), doc('a', 'c'))).toEqual([
      'a:a',
      'c:c edited too',
    ]);
    expect(planMerge(base, doc('a', 'b', 'c'), doc('a', 'c'))).toEqual([{ op: 'delete', index: 1, blockId: 'b' }]);
  });

  it('replaces what theirs changed; theirs wins a block both changed; mine keeps the rest', () => {
    const base = doc('a', 'b', 'c');
    const mine = doc('a:a by mine', 'b:b by mine', 'c');
    const theirs = doc('a', 'b:b by theirs', 'c:c by theirs');
    expect(merged(base, mine, theirs)).toEqual(['a:a by mine', 'b:b by theirs', 'c:c by theirs']);
    expect(planMerge(base, mine, theirs).map((s) => s.op)).toEqual(['replace', 'replace']);
  });

  it('makes no step for a change mine already holds', () => {
    const base = doc('a', 'b');
    expect(planMerge(base, doc('a', 'b:same edit'), doc('a', 'b:same edit'))).toEqual([]);
  });

  it('brings back a block mine deleted and theirs changed; leaves deleted one theirs did not change', () => {
    const base = doc('a', 'b', 'c');
    expect(merged(base, doc('a', 'c'), doc('a', 'b:b by theirs', 'c'))).toEqual(['a:a', 'b:b by theirs', 'c:c']);
    expect(planMerge(base, doc('a', 'c'), doc('a', 'b', 'c:c by theirs'))).toEqual([
      { op: 'replace', index: 1, block: p('c', 'c by theirs') },
    ]);
  });

  it('moves what theirs moved, with the block as mine has it', () => {
    const base = doc('a', 'b', 'c', 'd');
    const mine = doc('a', 'b:b typing', 'c', 'd');
    const plan = planMerge(base, mine, doc('b', 'c', 'd', 'a'));
    expect(plan).toEqual([{ op: 'move', from: 0, to: 3, blockId: 'a' }]);
    expect(texts(applyMergeOps(mine, plan))).toEqual(['b:b typing', 'c:c', 'd:d', 'a:a']);
    expect(merged(base, mine, doc('d', 'a', 'b', 'c'))).toEqual(['d:d', 'a:a', 'b:b typing', 'c:c']);
  });

  it('makes no step for a block theirs changed to what mine holds in another key order', () => {
    const base = doc('a', 'b');
    const edited = p('b', 'b edited');
    const reordered: Block = { children: [], content: edited.content, props: {}, type: 'paragraph', id: 'b' };
    expect(planMerge(base, [p('a', 'a'), reordered], [p('a', 'a'), edited])).toEqual([]);
  });

  it('keeps a block that theirs holds but the base missed (mine saved it since): mine is newer', () => {
    expect(planMerge(doc('a'), doc('a', 'n:typed more'), doc('a', 'n:typed'))).toEqual([]);
  });

  it('pairs duplicate ids in order', () => {
    const base = doc('d:one', 'd:two');
    expect(merged(base, doc('d:one', 'd:two'), doc('d:one', 'd:two changed'))).toEqual(['d:one', 'd:two changed']);
    expect(merged(base, doc('d:one', 'd:two'), doc('d:one'))).toEqual(['d:one']);
    expect(merged(base, doc('d:one', 'd:two'), doc('d:one', 'd:two', 'd:three'))).toEqual([
      'd:one',
      'd:two',
      'd:three',
    ]);
  });

  it('handles empty documents on every side', () => {
    expect(merged([], [], doc('a', 'b'))).toEqual(['a:a', 'b:b']);
    expect(merged(doc('a', 'b'), doc('a', 'b'), [])).toEqual([]);
    expect(merged(doc('a'), [], doc('a', 'b'))).toEqual(['b:b']);
    expect(merged([], doc('m'), [])).toEqual(['m:m']);
  });

  it('plans the same from prints as from the base blocks, and the same every time', () => {
    const base = doc('a', 'b', 'c');
    const mine = doc('a', 'b:mine', 'c', 'm');
    const theirs = doc('c', 'x', 'a', 'b');
    const plan = planMerge(base, mine, theirs);
    expect(planMergeOnPrints(blockPrints(base), mine, theirs)).toEqual(plan);
    expect(planMerge(base, mine, theirs)).toEqual(plan);
    expect(texts(applyMergeOps(mine, plan))).toEqual(['c:c', 'x:x', 'a:a', 'b:mine', 'm:m']);
  });

  it('compares whole blocks: a change in a child replaces its top-level block', () => {
    const parent = (child: string): Block => ({ ...p('a', 'parent'), children: [p('c', child)] });
    const plan = planMerge([parent('old')], [parent('old')], [parent('new')]);
    expect(plan).toEqual([{ op: 'replace', index: 0, block: parent('new') }]);
  });

  it('gives the result theirs holds whenever mine did not change (property)', () => {
    // Every base/theirs pair over a small alphabet of ids, mine = base: the plan must rebuild theirs.
    const ids = ['a', 'b', 'c', 'd'];
    const perms = (list: string[]): string[][] =>
      list.length <= 1
        ? [list]
        : list.flatMap((x, i) => perms([...list.slice(0, i), ...list.slice(i + 1)]).map((r) => [x, ...r]));
    const subsets = ids.flatMap((_, n) => perms(ids).map((perm) => perm.slice(0, n + 1)));
    const base = doc('a', 'b', 'c');
    for (const order of subsets) {
      const theirs = order.map((id) => p(id, id === 'b' ? 'b changed' : id));
      expect(texts(applyMergeOps(base, planMerge(base, base, theirs)))).toEqual(texts(theirs));
    }
  });
});
