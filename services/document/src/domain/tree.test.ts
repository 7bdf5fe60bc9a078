import { describe, expect, it } from 'vitest';
import { orderWithInsert } from './positions.js';
import { publicAncestors } from './public-view.js';
import { FIELD, isoFromUtcText, RECORD, type TreeRow, treeJson } from './tree.js';

const row = (id: string, parentId: string | null): TreeRow => ({
  id,
  parentId,
  title: id.toUpperCase(),
  icon: null,
  updatedAtUtc: '2026-01-01 00:00:00.123456',
});

interface Node {
  id: string;
  title: string;
  parentId: string | null;
  workspaceId: string;
  icon: string | null;
  updatedAt: string;
  children: Node[];
}

/** The records text the tree query returns (see tree.ts). */
const encode = (rows: TreeRow[]) =>
  rows.map((r) => [r.id, r.parentId ?? '', r.updatedAtUtc, r.icon ?? '', r.title].join(FIELD)).join(RECORD);

/** The obvious nesting with objects: the oracle treeJson must agree with. */
function reference(rows: TreeRow[], workspaceId: string): Node[] {
  const nodes = new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        title: r.title,
        parentId: r.parentId,
        workspaceId,
        icon: r.icon,
        updatedAt: isoFromUtcText(r.updatedAtUtc),
        children: [] as Node[],
      },
    ]),
  );
  const roots: Node[] = [];
  for (const r of rows) {
    const parent = r.parentId === null ? undefined : nodes.get(r.parentId);
    if (parent && parent !== nodes.get(r.id)) parent.children.push(nodes.get(r.id)!);
    else roots.push(nodes.get(r.id)!);
  }
  return roots;
}

const parse = (rows: TreeRow[]) => JSON.parse(treeJson(encode(rows), 'ws').toString('utf8')) as Node[];

describe('treeJson', () => {
  it('nests records under their parents, keeping the given sibling order', () => {
    const tree = parse([row('a', null), row('b', 'a'), row('c', null), row('d', 'a'), row('e', 'b')]);
    expect(tree.map((n) => n.id)).toEqual(['a', 'c']);
    expect(tree[0].children.map((n) => n.id)).toEqual(['b', 'd']);
    expect(tree[0].children[0].children.map((n) => n.id)).toEqual(['e']);
    expect(tree[1]).toEqual({
      id: 'c',
      title: 'C',
      parentId: null,
      workspaceId: 'ws',
      icon: null,
      updatedAt: '2026-01-01T00:00:00.123Z',
      children: [],
    });
  });

  it('answers an empty workspace with an empty array, and wraps the array when asked', () => {
    expect(treeJson(null, 'ws').toString()).toBe('[]');
    expect(treeJson('', 'ws', '{"data":', '}').toString()).toBe('{"data":[]}');
    expect(
      JSON.parse(treeJson(encode([row('a', null)]), 'ws', '{"success":true,"data":', '}').toString()),
    ).toMatchObject({ success: true, data: [{ id: 'a' }] });
  });

  it('escapes titles and icons, and keeps any Unicode', () => {
    const tricky = { ...row('q', null), title: 'say "hi" \\ \t tab \u0001 😀 日本語 \u2028', icon: '"<>' };
    expect(parse([tricky])[0]).toMatchObject({ title: tricky.title, icon: tricky.icon });
    expect(parse([{ ...row('p', null), title: '', icon: null }])[0]).toMatchObject({ title: '', icon: null });
  });

  it('handles a child listed before its parent', () => {
    const tree = parse([row('child', 'parent'), row('parent', null)]);
    expect(tree.map((n) => n.id)).toEqual(['parent']);
    expect(tree[0].children.map((n) => n.id)).toEqual(['child']);
  });

  it('keeps a record whose parent is missing as a root, and never returns a cycle', () => {
    expect(parse([row('orphan', 'gone'), row('x', 'y'), row('y', 'x'), row('self', 'self')]).map((n) => n.id)).toEqual([
      'orphan',
      'self',
    ]);
  });

  it('agrees with the plain object nesting on random trees', () => {
    for (let round = 0; round < 20; round++) {
      const rows: TreeRow[] = [];
      for (let i = 0; i < 300; i++)
        rows.push(row(`n${i}`, i === 0 || Math.random() < 0.1 ? null : `n${Math.floor(Math.random() * i)}`));
      rows.sort(() => Math.random() - 0.5);
      expect(parse(rows)).toEqual(reference(rows, 'ws'));
    }
  });

  it('writes 10,000 nodes, and a chain 10,000 deep without overflowing the stack', () => {
    const wide: TreeRow[] = [];
    for (let i = 0; i < 10_000; i++) wide.push(row(`n${i}`, i === 0 ? null : `n${Math.floor((i - 1) / 3)}`));
    let count = 0;
    const walk = (nodes: Node[]) => {
      for (const n of nodes) {
        count++;
        walk(n.children);
      }
    };
    walk(parse(wide));
    expect(count).toBe(10_000);

    const chain: TreeRow[] = [];
    for (let i = 0; i < 10_000; i++) chain.push(row(`c${i}`, i === 0 ? null : `c${i - 1}`));
    const text = treeJson(encode(chain), 'ws').toString();
    expect(text.startsWith('[{"id":"c0"')).toBe(true);
    expect(text.endsWith(`${']}'.repeat(10_000)}]`)).toBe(true);
    expect(text.split('"children":[').length - 1).toBe(10_000);
  });

  it('refuses a malformed record instead of writing wrong JSON', () => {
    expect(() => treeJson('id-only', 'ws')).toThrow(/malformed/);
  });
});

describe('isoFromUtcText', () => {
  it('turns Postgres UTC timestamp text into the ISO form the API speaks, truncated to milliseconds', () => {
    expect(isoFromUtcText('2026-01-02 03:04:05.678901')).toBe('2026-01-02T03:04:05.678Z');
    expect(isoFromUtcText('2026-01-02 03:04:05.6')).toBe('2026-01-02T03:04:05.600Z');
    expect(isoFromUtcText('2026-01-02 03:04:05.06')).toBe('2026-01-02T03:04:05.060Z');
    expect(isoFromUtcText('2026-01-02 03:04:05')).toBe('2026-01-02T03:04:05.000Z');
    // The same as the pool's timestamp parser (Date.parse drops the microseconds).
    expect(isoFromUtcText('2026-12-31 23:59:59.999999')).toBe(
      new Date(Date.parse('2026-12-31T23:59:59.999999Z')).toISOString(),
    );
  });
});

describe('orderWithInsert', () => {
  const s = (id: string, visible = true) => ({ id, visible });
  it('inserts at the index among visible siblings', () => {
    expect(orderWithInsert([s('a'), s('b'), s('c')], 'x', 0)).toEqual(['x', 'a', 'b', 'c']);
    expect(orderWithInsert([s('a'), s('b'), s('c')], 'x', 2)).toEqual(['a', 'b', 'x', 'c']);
    expect(orderWithInsert([s('a'), s('b')], 'x', 2)).toEqual(['a', 'b', 'x']);
    expect(orderWithInsert([s('a'), s('b')], 'x', 99)).toEqual(['a', 'b', 'x']);
    expect(orderWithInsert([], 'x', 0)).toEqual(['x']);
  });
  it('does not count hidden siblings', () => {
    expect(orderWithInsert([s('h', false), s('a'), s('b')], 'x', 1)).toEqual(['h', 'a', 'x', 'b']);
    expect(orderWithInsert([s('a'), s('h', false), s('b')], 'x', 1)).toEqual(['a', 'h', 'x', 'b']);
  });
});

describe('publicAncestors', () => {
  const link = (id: string, isPublished: boolean, isArchived = false) => ({ id, isPublished, isArchived });
  it('returns the unbroken published chain above the document, from the top, ending with it', () => {
    expect(
      publicAncestors([link('r', true), link('a', false), link('b', true), link('d', true)]).map((l) => l.id),
    ).toEqual(['b', 'd']);
    expect(publicAncestors([link('r', true), link('a', true), link('d', true)]).map((l) => l.id)).toEqual([
      'r',
      'a',
      'd',
    ]);
    expect(publicAncestors([link('r', true), link('d', false)])).toEqual([]);
    expect(publicAncestors([link('r', true), link('d', true, true)])).toEqual([]);
  });
});
