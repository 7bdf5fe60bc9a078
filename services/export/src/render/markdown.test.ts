import { describe, expect, it } from 'vitest';
import { readDocument } from '../domain/model.js';
import { renderMarkdown } from './markdown.js';

const md = (blocks: unknown[]) => renderMarkdown(readDocument('', blocks)).toString('utf8');
const para = (text: string) => ({ type: 'paragraph', content: [{ type: 'text', text, styles: {} }] });

describe('renderMarkdown', () => {
  it('keeps text that looks like Markdown as text, on every line of a block', () => {
    expect(md([para('# not a heading')])).toBe('\\# not a heading\n');
    expect(md([para('    not code')])).toBe('not code\n');
    expect(md([para('1. not a list')])).toBe('1\\. not a list\n');
    expect(md([para('- not a bullet')])).toBe('\\- not a bullet\n');
    expect(md([para('> not a quote')])).toBe('\\> not a quote\n');
    expect(md([para('first\n# second\n2) third')])).toBe('first\\\n\\# second\\\n2\\) third\n');
    expect(md([para('*a* _b_ [c](d) <e> `f` | ~g~ & h\\')])).toBe(
      '\\*a\\* \\_b\\_ \\[c\\](d) \\<e\\> \\`f\\` \\| \\~g\\~ \\& h\\\\\n',
    );
  });

  it('puts the spaces around a styled run outside its markers', () => {
    expect(md([{ type: 'paragraph', content: [{ type: 'text', text: ' bold ', styles: { bold: true } }, 'x'] }])).toBe(
      '**bold** x\n',
    );
  });

  it('fences code longer than any backtick run inside it, and code spans too', () => {
    expect(md([{ type: 'codeBlock', props: { language: 'md' }, content: '```\ninner\n```' }])).toBe(
      '````md\n```\ninner\n```\n````\n',
    );
    expect(md([{ type: 'paragraph', content: [{ type: 'text', text: 'a`b', styles: { code: true } }] }])).toBe(
      '``a`b``\n',
    );
  });

  it('numbers each list from 1 and nests children under the item text', () => {
    expect(
      md([
        { type: 'numberedListItem', content: 'a' },
        {
          type: 'numberedListItem',
          content: 'b',
          children: [{ type: 'checkListItem', props: { checked: true }, content: 'c' }],
        },
        para('between'),
        { type: 'numberedListItem', content: 'again' },
      ]),
    ).toBe('1. a\n2. b\n   - [x] c\n\nbetween\n\n1. again\n');
  });
});
