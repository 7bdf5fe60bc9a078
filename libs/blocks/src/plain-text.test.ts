import { describe, expect, it } from 'vitest';
import { countWords, deriveText, EXCERPT_LENGTH, excerptOf, inlineText, plainTextOf, tableText } from './plain-text.js';

const text = (t: string, styles: Record<string, unknown> = {}) => ({ type: 'text', text: t, styles });
const block = (type: string, content: unknown, extra: Record<string, unknown> = {}) => ({
  id: `${type}-1`,
  type,
  props: {},
  content,
  children: [],
  ...extra,
});

describe('plain text of BlockNote content', () => {
  it('reads every text block type, one line each', () => {
    const blocks = [
      block('paragraph', [text('A paragraph '), text('bold', { bold: true })]),
      block('heading', [text('A heading')], { props: { level: 2 } }),
      block('bulletListItem', [text('bullet')]),
      block('numberedListItem', [text('numbered')]),
      block('checkListItem', [text('check')], { props: { checked: true } }),
      block('codeBlock', [text('const x = 1;\nreturn x;')], { props: { language: 'javascript' } }),
      block('quote', [text('a quote')]),
    ];
    expect(plainTextOf(blocks)).toBe(
      'A paragraph bold\nA heading\nbullet\nnumbered\ncheck\nconst x = 1;\nreturn x;\na quote',
    );
  });

  it('puts nested children after their parent, depth first', () => {
    const blocks = [
      block('bulletListItem', [text('parent')], {
        children: [block('bulletListItem', [text('child')], { children: [block('paragraph', [text('grandchild')])] })],
      }),
      block('paragraph', [text('next')]),
    ];
    expect(plainTextOf(blocks)).toBe('parent\nchild\ngrandchild\nnext');
  });

  it('reads the text inside links and the name of mentions', () => {
    const content = [
      text('See '),
      { type: 'link', href: 'https://example.com', content: [text('the site', { italic: true })] },
      text(' and ask '),
      { type: 'mention', props: { user: 'Ada Lovelace' } },
      text(' or '),
      { type: 'mention', props: { id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', name: 'Grace' } },
    ];
    expect(inlineText(content)).toBe('See the site and ask @Ada Lovelace or @Grace');
    // A link whose content is a plain string, as partial blocks allow.
    expect(inlineText([{ type: 'link', href: 'https://x.test', content: 'x' }])).toBe('x');
  });

  it('reads tables: rows as lines, cells as plain inline arrays or tableCell objects', () => {
    const table = block('table', {
      type: 'tableContent',
      columnWidths: [100, 100],
      headerRows: 1,
      rows: [
        { cells: [[text('Name')], [text('Role')]] },
        {
          cells: [
            { type: 'tableCell', props: { colspan: 1 }, content: [text('Ada')] },
            { type: 'tableCell', content: [{ type: 'link', href: 'https://a.test', content: [text('Engineer')] }] },
          ],
        },
        { cells: [[], []] },
      ],
    });
    expect(plainTextOf([table])).toBe('Name\tRole\nAda\tEngineer');
    expect(tableText({ type: 'tableContent' })).toEqual([]);
  });

  it('reads the captions of image, file, video and audio blocks', () => {
    const media = ['image', 'file', 'video', 'audio'].map((type) =>
      block(type, undefined, {
        props: { url: `https://cdn.test/${type}`, name: `${type}.bin`, caption: `${type} caption` },
      }),
    );
    media.push(block('image', undefined, { props: { url: 'https://cdn.test/none', caption: '' } }));
    expect(plainTextOf(media)).toBe('image caption\nfile caption\nvideo caption\naudio caption');
  });

  it('accepts string inline content and ignores what is not a block', () => {
    expect(plainTextOf([block('paragraph', 'plain string'), null, 42, 'x', block('paragraph', [])])).toBe(
      'plain string',
    );
    expect(plainTextOf('not an array')).toBe('');
    expect(plainTextOf([])).toBe('');
  });

  it('reads unknown blocks and custom inline content by their text', () => {
    const blocks = [
      block('callout', [
        { type: 'tag', text: '#todo' },
        { type: 'emphasis', content: [text(' now')] },
      ]),
    ];
    expect(plainTextOf(blocks)).toBe('#todo now');
  });
});

describe('excerpt and word count', () => {
  it('cuts the excerpt at 200 characters without splitting an emoji', () => {
    const long = `${'a'.repeat(199)}😀${'b'.repeat(10)}`;
    expect(excerptOf(long)).toBe(`${'a'.repeat(199)}😀`);
    expect([...excerptOf('x'.repeat(500))]).toHaveLength(EXCERPT_LENGTH);
    expect(excerptOf('short')).toBe('short');
  });

  it('counts words separated by any whitespace, ignoring punctuation-only tokens', () => {
    expect(countWords('')).toBe(0);
    expect(countWords('one two\tthree\nfour  five')).toBe(5);
    expect(countWords('well - it’s e-mail, 42 times!')).toBe(5);
    expect(countWords('  \n ')).toBe(0);
  });

  it('derives all three from blocks', () => {
    const derived = deriveText([
      block('heading', [text('Title here')]),
      block('paragraph', [text('Body text with words.')]),
    ]);
    expect(derived).toEqual({
      plainText: 'Title here\nBody text with words.',
      excerpt: 'Title here\nBody text with words.',
      wordCount: 6,
    });
  });
});
