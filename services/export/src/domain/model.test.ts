import { describe, expect, it } from 'vitest';
import { contentDisposition, fileNameOf } from './filename.js';
import { readDocument, readRuns, safeHref } from './model.js';

describe('safeHref', () => {
  it('keeps http, https, mailto and paths on this site', () => {
    expect(safeHref('https://example.com/a b')).toBe('https://example.com/a%20b');
    expect(safeHref('HTTP://Example.com')).toBe('http://example.com/');
    expect(safeHref('mailto:ada@example.com')).toBe('mailto:ada@example.com');
    expect(safeHref('/api/v1/attachments/file?url=k')).toBe('/api/v1/attachments/file?url=k');
  });

  it('drops every other scheme, however it is disguised', () => {
    for (const href of [
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'java\tscript:alert(1)',
      'java\nscript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      'vbscript:msgbox(1)',
      'ftp://example.com/x',
      '//evil.example.com/x',
      '/\\evil.example.com',
      'not a url',
      '',
      42,
    ]) {
      expect(safeHref(href), String(href)).toBeNull();
    }
  });
});

describe('readDocument', () => {
  it('reads the JSON string the document service stores, and survives content that is not JSON', () => {
    expect(readDocument('T', '[{"type":"paragraph","content":"hi"}]').blocks).toEqual([
      { kind: 'paragraph', runs: [{ text: 'hi' }], children: [] },
    ]);
    expect(readDocument('T', 'not json').blocks).toEqual([
      { kind: 'paragraph', runs: [{ text: 'not json' }], children: [] },
    ]);
  });

  it('flattens nesting deeper than it renders instead of overflowing the stack', () => {
    let block: Record<string, unknown> = { type: 'bulletListItem', content: 'leaf', children: [] };
    for (let i = 0; i < 20_000; i += 1) block = { type: 'bulletListItem', content: `level ${i}`, children: [block] };
    const doc = readDocument('Deep', [block]);
    const count = (blocks: typeof doc.blocks): number =>
      blocks.reduce((n, b) => n + 1 + ('children' in b ? count(b.children) : 0), 0);
    expect(count(doc.blocks)).toBe(20_001);
  });

  it('keeps a link text without its target when the target is unsafe, and merges equal neighbours', () => {
    expect(
      readRuns([
        { type: 'text', text: 'a', styles: { bold: true } },
        { type: 'text', text: 'b', styles: { bold: true } },
        { type: 'link', href: 'javascript:x', content: [{ type: 'text', text: 'c', styles: {} }] },
      ]),
    ).toEqual([{ text: 'ab', bold: true }, { text: 'c' }]);
  });
});

describe('file names', () => {
  it('replaces what a file system or a header cannot take, and is never empty', () => {
    expect(fileNameOf('a/b\\c:d*e?f"g<h>i|j\u0000k\nl')).toBe('a_b_c_d_e_f_g_h_i_j_k_l');
    expect(fileNameOf('...hidden...')).toBe('hidden');
    expect(fileNameOf('   ')).toBe('document');
    expect(fileNameOf('x'.repeat(500))).toHaveLength(120);
  });

  it('percent-encodes the name in RFC 5987 form', () => {
    expect(contentDisposition("Plan (v2) l'été", 'pdf')).toBe(
      "attachment; filename*=UTF-8''Plan%20%28v2%29%20l%27%C3%A9t%C3%A9.pdf",
    );
  });
});
