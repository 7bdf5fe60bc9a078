import { describe, expect, it } from 'vitest';
import { readDocument } from '../domain/model.js';
import { renderMarkdown } from '../render/markdown.js';
import { type Json, withoutIds } from './blocks.js';
import { planUpload } from './index.js';

interface Editor {
  blocksToYDoc(blocks: unknown[]): unknown;
  yDocToBlocks(doc: unknown): Json[];
}
/** Imported by a name TypeScript does not follow (convert/blocknote.ts says why). */
const SERVER_UTIL = '@blocknote/server-util';

/** The blocks as BlockNote's editor holds them once they are in a collaboration room (Yjs). */
async function throughEditor(blocks: Json[]): Promise<Json[]> {
  const { ServerBlockNoteEditor } = (await import(SERVER_UTIL)) as { ServerBlockNoteEditor: { create(): Editor } };
  const editor = ServerBlockNoteEditor.create();
  return withoutIds(editor.yDocToBlocks(editor.blocksToYDoc(blocks)));
}

const text = (value: string, styles: Record<string, boolean> = {}) => ({ type: 'text', text: value, styles });
const cell = (value: string) => ({ type: 'tableCell', content: [text(value)] });

/** What a document holds, as the editor stores it. */
const ORIGINAL = [
  { type: 'heading', props: { level: 2 }, content: [text('概要 Overview')] },
  { type: 'heading', props: { level: 3 }, content: [text('Plan <B> & C #')] },
  {
    type: 'paragraph',
    content: [
      text('Plain, '),
      text('bold', { bold: true }),
      text(', '),
      text('italic', { italic: true }),
      text(', '),
      text('struck', { strike: true }),
      text(', '),
      text('code', { code: true }),
      text(' and a '),
      { type: 'link', href: 'https://example.com/a?b=1', content: [text('link')] },
      text('. Characters like * _ # | < > & \\ " $ % \' : @ ^ stay text, &amp; and &#42; too.'),
    ],
  },
  { type: 'checkListItem', props: { checked: true }, content: [text('done')] },
  { type: 'checkListItem', props: { checked: false }, content: [text('open')] },
  {
    type: 'bulletListItem',
    content: [text('outer')],
    children: [{ type: 'bulletListItem', content: [text('inner')] }],
  },
  { type: 'numberedListItem', content: [text('one')] },
  { type: 'numberedListItem', content: [text('two')] },
  {
    type: 'table',
    content: {
      type: 'tableContent',
      headerRows: 1,
      rows: [{ cells: [cell('键'), cell('值')] }, { cells: [cell('中文'), cell('a | b')] }],
    },
  },
  { type: 'codeBlock', props: { language: 'python' }, content: [text('def f():\n    return "```"')] },
  { type: 'quote', content: [text('A quote')] },
];

describe('export to Markdown, then import', { timeout: 30_000 }, () => {
  it('gives back the title and the content, as the exporter prints it again', async () => {
    const exported = renderMarkdown(readDocument('Round trip 往復 #', ORIGINAL));
    const plan = await planUpload('Round trip 往復.md', exported);
    expect(plan.warnings).toEqual([]);
    const [doc] = plan.documents;
    expect(doc.title).toBe('Round trip 往復 #');
    // The imported blocks print as the same Markdown: same structure, text, styles and links.
    expect(renderMarkdown(readDocument(doc.title, doc.content)).toString('utf8')).toBe(exported.toString('utf8'));
    // And it is already in the editor's own form: a room built from it holds exactly it.
    expect(await throughEditor(doc.content)).toEqual(doc.content);
  });

  it('reads every backslash escape and the common references, and leaves code as it is', async () => {
    const markdown = [
      'a \\< b \\& c \\" d \\\\< e &lt;tag&gt; &amp;amp; &#233; &#x4e2d; `\\<` \\`x\\` &bogus;',
      '',
      '```',
      '\\< &lt;',
      '```',
    ].join('\n');
    const [doc] = (await planUpload('escapes.md', Buffer.from(markdown))).documents;
    const texts = doc.content.map((block) => (block.content as Array<{ text: string }>).map((r) => r.text).join(''));
    expect(texts).toEqual(['a < b & c " d \\< e <tag> &amp; é 中 \\< `x` &bogus;', '\\< &lt;']);
  });

  it("plans HTML and Confluence markup in the editor's own form too", async () => {
    const plan = await planUpload(
      'page.html',
      Buffer.from(
        '<h2>T</h2><p>a <strong>b</strong> <a href="https://x.example">c</a></p><ul><li>x<ul><li>y</li></ul></li></ul>' +
          '<ul class="inline-task-list"><li class="checked">t</li></ul><pre class="syntaxhighlighter-pre" ' +
          'data-syntaxhighlighter-params="brush: sql">select 1</pre><table><tr><th>h</th></tr><tr><td><p>1</p><p>2</p></td></tr></table>' +
          '<blockquote><p>q</p></blockquote><img src="https://x.example/i.png" alt="i">',
      ),
    );
    const [doc] = plan.documents;
    expect(doc.content.length).toBeGreaterThan(5);
    expect(await throughEditor(doc.content)).toEqual(doc.content);
  });
});
