import { dropNul, isEmptyContent, parseBlocks, saveVerdict, seededClientId, withSeededIds } from './blocks.js';

const text = (t: string) => ({ type: 'paragraph', content: [{ type: 'text', text: t, styles: {} }] });

describe('blocks', () => {
  it('parses content, treating anything but an array as empty', () => {
    expect(parseBlocks('[{"type":"paragraph"}]')).toEqual([{ type: 'paragraph' }]);
    expect(parseBlocks('{"type":"paragraph"}')).toEqual([]);
    expect(parseBlocks('not json')).toEqual([]);
  });

  it('seeds missing ids from the seed and the position, keeping given ones', () => {
    const blocks = [
      { type: 'paragraph', children: [{ type: 'paragraph' }] },
      { id: 'kept', type: 'paragraph' },
    ];
    const a = withSeededIds(blocks, 'doc:1');
    expect(a).toEqual(withSeededIds(blocks, 'doc:1'));
    expect(a[1]!.id).toBe('kept');
    expect(a[0]!.id).not.toBe(a[0]!.children![0]!.id);
    expect(withSeededIds(blocks, 'doc:2')[0]!.id).not.toBe(a[0]!.id);
    expect(a[0]!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('derives one client id per document, revision and content', () => {
    const id = seededClientId('d', 1, '[]');
    expect(id).toBe(seededClientId('d', 1, '[]'));
    expect(id).not.toBe(seededClientId('d', 2, '[]'));
    expect(id).not.toBe(seededClientId('d', 1, '[{}]'));
    expect(id).toBeGreaterThanOrEqual(0);
    expect(id).toBeLessThan(2 ** 32);
  });

  it('drops NUL from every string of the blocks, keys included, and leaves the rest as it was', () => {
    const blocks = [
      {
        type: 'paragraph',
        props: { 'a\u0000b': 'c\u0000' },
        content: [{ type: 'text', text: 'x\u0000y', styles: {} }],
      },
      { type: 'table', children: [text('\u0000\u0000'), text('fine')] },
    ];
    expect(dropNul(blocks)).toEqual([
      { type: 'paragraph', props: { ab: 'c' }, content: [{ type: 'text', text: 'xy', styles: {} }] },
      { type: 'table', children: [text(''), text('fine')] },
    ]);
    expect(JSON.stringify(blocks)).not.toContain('\\u0000');
  });

  it('calls only text-less paragraphs empty', () => {
    expect(isEmptyContent([])).toBe(true);
    expect(isEmptyContent([{ type: 'paragraph', content: [] }, { type: 'paragraph' }])).toBe(true);
    expect(isEmptyContent([text('x')])).toBe(false);
    expect(isEmptyContent([{ type: 'image', props: { url: 'https://x/y.png' } }])).toBe(false);
    expect(isEmptyContent([{ type: 'paragraph', children: [text('nested')] }])).toBe(false);
  });

  it('never stores an empty room over content it did not see deleted', async () => {
    const stored = (empty: boolean) => async () => empty;
    const base = { unchanged: false, empty: true, sawContent: false };
    expect(await saveVerdict({ ...base, unchanged: true, storedIsEmpty: stored(true) })).toBe('skip-unchanged');
    expect(await saveVerdict({ ...base, storedIsEmpty: stored(false) })).toBe('refuse-empty');
    expect(await saveVerdict({ ...base, storedIsEmpty: stored(true) })).toBe('save');
    expect(await saveVerdict({ ...base, sawContent: true, storedIsEmpty: stored(false) })).toBe('save');
    expect(await saveVerdict({ ...base, empty: false, storedIsEmpty: stored(false) })).toBe('save');
  });
});
