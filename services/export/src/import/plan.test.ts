import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import yazl from 'yazl';
import type { Json } from './blocks.js';
import { ATTACHMENT_URL, DOCUMENT_LINK, type ImportPlan, planUpload, resolvePlaceholders } from './index.js';

// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

async function zipOf(entries: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(entries)) zip.addBuffer(Buffer.from(data), name);
  zip.end();
  return buffer(zip.outputStream);
}

const byTitle = (plan: ImportPlan, title: string) => {
  const doc = plan.documents.find((d) => d.title === title);
  if (!doc) throw new Error(`no document "${title}" in ${plan.documents.map((d) => d.title).join(', ')}`);
  return doc;
};

/** Every block of a tree, depth first. */
function allBlocks(blocks: Json[]): Json[] {
  return blocks.flatMap((b) => [b, ...allBlocks((b.children as Json[] | undefined) ?? [])]);
}

/** Every inline item (text, link) of the blocks, table cells included. */
function inline(blocks: Json[]): Json[] {
  const out: Json[] = [];
  for (const block of allBlocks(blocks)) {
    const content = block.content as unknown;
    if (Array.isArray(content)) out.push(...(content as Json[]));
    else if (content && typeof content === 'object') {
      for (const row of (content as { rows: { cells: Json[] }[] }).rows) {
        for (const cell of row.cells) out.push(...((cell.content as Json[]) ?? []));
      }
    }
  }
  return out.flatMap((item) => (item.type === 'link' ? [item, ...(item.content as Json[])] : [item]));
}

const textOf = (blocks: Json[]) =>
  inline(blocks)
    .filter((i) => i.type === 'text')
    .map((i) => i.text)
    .join(' ');

/** Block types BlockNote's default schema has (what the editor and the document service take). */
const BLOCKNOTE_TYPES = new Set([
  'paragraph',
  'heading',
  'bulletListItem',
  'numberedListItem',
  'checkListItem',
  'toggleListItem',
  'quote',
  'codeBlock',
  'table',
  'image',
  'video',
  'audio',
  'file',
  'divider',
]);

function expectWellFormed(plan: ImportPlan): void {
  const seen = new Set<string>();
  for (const doc of plan.documents) {
    // Parents come before their children.
    if (doc.parentKey) expect(seen.has(doc.parentKey)).toBe(true);
    seen.add(doc.key);
    expect(doc.key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    for (const block of allBlocks(doc.content)) {
      expect(BLOCKNOTE_TYPES.has(block.type as string)).toBe(true);
      expect(block.id).toBeUndefined();
    }
  }
  for (const attachment of plan.attachments) expect(seen.has(attachment.documentKey)).toBe(true);
}

// The first conversion loads BlockNote's parsers and jsdom: seconds on a busy machine.
describe('a folder of Markdown', { timeout: 30_000 }, () => {
  it('becomes a tree with titles, links between the documents, images as attachments', async () => {
    const zip = await zipOf({
      'handbook/Guide.md': [
        '---',
        'title: The Guide',
        'tags: [a, b]',
        '---',
        '',
        'Start with [setup](Guide/Setup.md#install) or [the web](https://example.com/x).',
        '',
        '![diagram](images/diagram.png)',
        '',
        '![logo](https://cdn.example.com/logo.png)',
      ].join('\n'),
      'handbook/Guide/Setup.md': [
        '# Setting up',
        '',
        'Back to [the guide](../Guide.md) and a [dead link](missing.md).',
        '',
        '- [x] install node',
        '- [ ] read the **docs**',
        '',
        '1. first',
        '   - nested *bullet*',
        '2. second',
        '',
        '| 名前 | 値 |',
        '| --- | --- |',
        '| 日本語のテキスト | ~~old~~ `new` |',
        '',
        '```typescript',
        'const answer: number = 42;',
        '```',
        '',
        '> 引用 quoted',
      ].join('\n'),
      'handbook/Guide/Advanced/Deep.md': '# Deep\n\nUp [two](../../Guide.md), [the folder](../../Guide/).',
      'handbook/images/diagram.png': PNG,
      'handbook/images/evil.svg': SVG,
      'handbook/Other.md': 'No heading here.\n\n![bad](images/evil.svg)\n\n![gone](images/none.png)',
      'handbook/notes.txt': 'not a document',
    });
    const plan = await planUpload('handbook.zip', zip, { seed: 'job-1' });
    expectWellFormed(plan);

    // The wrapping folder is unwrapped; `Guide.md` is the document of `Guide/`; `Advanced/` has no
    // file and becomes an empty document; `images/` holds no document and is none.
    expect(plan.documents.map((d) => [d.title, d.order])).toEqual([
      ['The Guide', 0],
      ['Advanced', 0],
      ['Deep', 0],
      ['Setting up', 1],
      ['Other', 1],
    ]);
    const guide = byTitle(plan, 'The Guide');
    const setup = byTitle(plan, 'Setting up');
    const advanced = byTitle(plan, 'Advanced');
    expect(guide.parentKey).toBeNull();
    expect(advanced.parentKey).toBe(guide.key);
    expect(advanced.content).toEqual([]);
    expect(byTitle(plan, 'Deep').parentKey).toBe(advanced.key);
    expect(setup.parentKey).toBe(guide.key);
    expect(byTitle(plan, 'Other').parentKey).toBeNull();

    // Links between imported files are placeholders of the planned keys; the fragment stays.
    const links = (doc: { content: Json[] }) => inline(doc.content).filter((i) => i.type === 'link');
    expect(links(guide).map((l) => l.href)).toEqual([`${DOCUMENT_LINK}${setup.key}#install`, 'https://example.com/x']);
    expect(links(setup).map((l) => l.href)).toEqual([`${DOCUMENT_LINK}${guide.key}`]);
    expect(textOf(setup.content)).toContain('dead link'); // the text of an unresolved link stays
    expect(links(byTitle(plan, 'Deep')).map((l) => l.href)).toEqual([
      `${DOCUMENT_LINK}${guide.key}`,
      `${DOCUMENT_LINK}${guide.key}`, // a link to the folder leads to the folder's document
    ]);

    // The relative image is an attachment of its document; the external one stays a URL.
    const images = guide.content.filter((b) => b.type === 'image').map((b) => (b.props as Json).url);
    expect(plan.attachments).toHaveLength(1);
    const [diagram] = plan.attachments;
    expect(diagram).toMatchObject({ documentKey: guide.key, fileName: 'diagram.png', mime: 'image/png' });
    expect(diagram.bytes.equals(PNG)).toBe(true);
    expect(images).toEqual([`${ATTACHMENT_URL}${diagram.key}`, 'https://cdn.example.com/logo.png']);

    // The H1 became the title and left the body; the rest converted as the editor has it.
    const blocks = allBlocks(setup.content);
    expect(blocks.some((b) => b.type === 'heading')).toBe(false);
    expect(blocks.filter((b) => b.type === 'checkListItem').map((b) => (b.props as Json).checked)).toEqual([
      true,
      false,
    ]);
    const numbered = setup.content.filter((b) => b.type === 'numberedListItem');
    expect(numbered).toHaveLength(2);
    expect((numbered[0].children as Json[])[0]).toMatchObject({ type: 'bulletListItem' });
    expect(inline(numbered[0].children as Json[])).toContainEqual({
      type: 'text',
      text: 'bullet',
      styles: { italic: true },
    });
    const code = blocks.find((b) => b.type === 'codeBlock') as Json;
    expect((code.props as Json).language).toBe('typescript');
    expect(textOf([code])).toBe('const answer: number = 42;');
    const table = blocks.find((b) => b.type === 'table') as Json;
    expect((table.content as Json).headerRows).toBe(1);
    expect(textOf([table])).toContain('日本語のテキスト');
    expect(inline([table])).toContainEqual({ type: 'text', text: 'old', styles: { strike: true } });
    expect(inline([table])).toContainEqual({ type: 'text', text: 'new', styles: { code: true } });
    expect(inline(setup.content)).toContainEqual({ type: 'text', text: 'docs', styles: { bold: true } });
    expect(textOf(blocks.filter((b) => b.type === 'quote'))).toBe('引用 quoted');

    // What could not come along is listed, with the file it is about.
    const warnings = plan.warnings.map((w) => [w.code, w.path]);
    expect(warnings).toContainEqual(['UNRESOLVED_LINK', 'handbook/Guide/Setup.md']);
    expect(warnings).toContainEqual(['REFUSED_IMAGE', 'handbook/Other.md']);
    expect(warnings).toContainEqual(['MISSING_IMAGE', 'handbook/Other.md']);
    expect(warnings).toContainEqual(['NOT_IMPORTED', 'handbook/notes.txt']);
    expect(warnings).toHaveLength(4); // the refused SVG is reported once, as REFUSED_IMAGE
    expect(plan.attachments.some((a) => a.mime.includes('svg'))).toBe(false);
    expect(textOf(byTitle(plan, 'Other').content)).toContain('bad'); // a refused image keeps its name as text
  });

  it('plans the same keys for the same seed, and others for another', async () => {
    const zip = await zipOf({ 'a.md': '# A\n\n[b](b.md)', 'b.md': '# B' });
    const one = await planUpload('x.zip', zip, { seed: 'job-7' });
    const again = await planUpload('x.zip', zip, { seed: 'job-7' });
    const other = await planUpload('x.zip', zip, { seed: 'job-8' });
    expect(again).toEqual(one);
    expect(other.documents[0].key).not.toBe(one.documents[0].key);
  });

  it('resolves placeholders once the documents and files exist', async () => {
    const plan = await planUpload(
      'x.zip',
      await zipOf({ 'a.md': '[b](b.md#part)\n\n![p](p.png)', 'b.md': 'B', 'p.png': PNG }),
    );
    const [a, b] = plan.documents;
    const content = resolvePlaceholders(a.content, {
      document: (key) => `/w/ws1/d/${key === b.key ? 'doc-b' : 'unknown'}`,
      attachment: (key) => `/api/v1/attachments/file?url=${key === plan.attachments[0].key ? 'stored-p' : 'x'}`,
    });
    expect(inline(content).find((i) => i.type === 'link')?.href).toBe('/w/ws1/d/doc-b#part');
    expect(content.find((blk) => blk.type === 'image')?.props).toMatchObject({
      url: '/api/v1/attachments/file?url=stored-p',
    });
  });

  it('keeps images that sit inside text, which BlockNote keeps only as blocks of their own', async () => {
    const plan = await planUpload(
      'x.zip',
      await zipOf({
        'a.md': 'Text before ![pic](p.png) text after.\n\n```\nnot ![x](p.png) an image\n```\n',
        'b.html': '<p>see <img src="p.png" alt="q"> here</p><ul><li>item <img src="p.png"></li></ul>',
        'p.png': PNG,
      }),
    );
    const [a, b] = plan.documents;
    expect(a.content.map((blk) => blk.type)).toEqual(['paragraph', 'image', 'paragraph', 'codeBlock']);
    expect(textOf(a.content)).toContain('not ![x](p.png) an image'); // code stays code
    expect(b.content.map((blk) => blk.type)).toEqual(['paragraph', 'image', 'bulletListItem']);
    expect((b.content[2].children as Json[]).map((blk) => blk.type)).toEqual(['image']);
    expect(plan.attachments.map((att) => att.documentKey)).toEqual([a.key, b.key]); // one per document
    expect(plan.warnings).toEqual([]);
  });

  it('takes a single Markdown or HTML file, dropping what could run', async () => {
    const md = await planUpload('Meeting notes.md', Buffer.from('Just text with <b>html</b>.'));
    expect(md.documents).toHaveLength(1);
    expect(md.documents[0].title).toBe('Meeting notes');

    const html = await planUpload(
      'page.html',
      Buffer.from(
        '<html><head><title>Page title</title><script>alert(1)</script></head><body>' +
          '<h1>Page title</h1><p onclick="x()">Hello <a href="javascript:alert(1)">there</a></p>' +
          '<pre>plain pre\n  indented</pre><iframe src="https://evil.example"></iframe></body></html>',
      ),
    );
    const [page] = html.documents;
    expect(page.title).toBe('Page title');
    expect(JSON.stringify(page.content)).not.toMatch(/javascript|alert|onclick|iframe|Page title/);
    expect(textOf(page.content)).toContain('Hello there');
    const code = page.content.find((b) => b.type === 'codeBlock');
    expect(textOf([code as Json])).toBe('plain pre\n  indented');
  });
});

describe("Notion's Markdown export", { timeout: 30_000 }, () => {
  const ROOT = 'Team Wiki 0123456789abcdef0123456789abcdef';
  const LONG = 'A rather long page title that Notion shortens 11112222333344445555666677778888';
  const LONG_FOLDER = 'A rather long page ti 11112222333344445555666677778888';
  it('strips the ids from titles, matches folders by id and resolves its percent-encoded links', async () => {
    const zip = await zipOf({
      [`Export-9f8e/${ROOT}.md`]: [
        '# Team Wiki',
        '',
        `See [Onboarding](${encodeURIComponent(ROOT)}/Onboarding%20fedcba9876543210fedcba9876543210.md) and`,
        `[the long one](${encodeURIComponent(ROOT)}/${encodeURIComponent(LONG)}.md).`,
        '',
        `![team photo](${encodeURIComponent(ROOT)}/photo.png)`,
      ].join('\n'),
      [`Export-9f8e/${ROOT}/Onboarding fedcba9876543210fedcba9876543210.md`]: '# Onboarding\n\nWelcome 👋 ようこそ',
      [`Export-9f8e/${ROOT}/${LONG}.md`]: '# A rather long page title that Notion shortens\n\nParent of one.',
      [`Export-9f8e/${ROOT}/${LONG_FOLDER}/Child aaaabbbbccccddddeeeeffff00001111.md`]: `# Child\n\n[up](../${encodeURIComponent(LONG)}.md)`,
      [`Export-9f8e/${ROOT}/photo.png`]: PNG,
      [`Export-9f8e/${ROOT}/Tasks 99998888777766665555444433332222.csv`]: 'Name,Done\nx,Yes\n',
    });
    const plan = await planUpload('Export-9f8e.zip', zip, { seed: 'n' });
    expectWellFormed(plan);
    expect(plan.documents.map((d) => d.title)).toEqual([
      'Team Wiki',
      'A rather long page title that Notion shortens',
      'Child',
      'Onboarding',
    ]);
    const root = byTitle(plan, 'Team Wiki');
    const long = byTitle(plan, 'A rather long page title that Notion shortens');
    const onboarding = byTitle(plan, 'Onboarding');
    expect(root.parentKey).toBeNull();
    expect(long.parentKey).toBe(root.key);
    expect(onboarding.parentKey).toBe(root.key);
    expect(byTitle(plan, 'Child').parentKey).toBe(long.key); // the shortened folder matched by its id
    const hrefs = inline(root.content)
      .filter((i) => i.type === 'link')
      .map((l) => l.href);
    expect(hrefs).toEqual([`${DOCUMENT_LINK}${onboarding.key}`, `${DOCUMENT_LINK}${long.key}`]);
    expect(inline(byTitle(plan, 'Child').content).find((i) => i.type === 'link')?.href).toBe(
      `${DOCUMENT_LINK}${long.key}`,
    );
    expect(plan.attachments).toMatchObject([{ documentKey: root.key, fileName: 'photo.png', mime: 'image/png' }]);
    expect(textOf(onboarding.content)).toBe('Welcome 👋 ようこそ');
    expect(plan.warnings.map((w) => w.code)).toEqual(['TABLE_NOT_IMPORTED']); // the database's CSV
  });

  it("skips a database's tables with a warning, and imports its pages under the folder's document", async () => {
    const TASKS = 'Tasks 99998888777766665555444433332222';
    const zip = await zipOf({
      [`${ROOT}.md`]: `# Team Wiki\n\nSee [Tasks](${encodeURIComponent(ROOT)}/${encodeURIComponent(TASKS)}.csv).`,
      [`${ROOT}/${TASKS}.csv`]: 'Name,Done\nWrite docs,Yes\n',
      [`${ROOT}/${TASKS}_all.csv`]: 'Name,Done,Created\nWrite docs,Yes,2024\n',
      [`${ROOT}/${TASKS}/Write docs 12341234123412341234123412341234.md`]: '# Write docs\n\nDone: Yes',
      [`${ROOT}/Loose table.csv`]: 'a,b\n1,2\n',
    });
    const plan = await planUpload('Export.zip', zip, { seed: 'n' });
    expectWellFormed(plan);
    const root = byTitle(plan, 'Team Wiki');
    const tasks = byTitle(plan, 'Tasks');
    expect(tasks.parentKey).toBe(root.key);
    expect(byTitle(plan, 'Write docs').parentKey).toBe(tasks.key);
    // A link to the table leads to the document holding its pages.
    expect(inline(root.content).find((i) => i.type === 'link')?.href).toBe(`${DOCUMENT_LINK}${tasks.key}`);
    expect(plan.warnings.map((w) => [w.code, w.path, w.message])).toEqual([
      [
        'TABLE_NOT_IMPORTED',
        `${ROOT}/${TASKS}.csv`,
        'a table (a Notion database) is not imported; its pages are, under "Tasks"',
      ],
      [
        'TABLE_NOT_IMPORTED',
        `${ROOT}/${TASKS}_all.csv`,
        'a table (a Notion database) is not imported; its pages are, under "Tasks"',
      ],
      ['TABLE_NOT_IMPORTED', `${ROOT}/Loose table.csv`, 'a table (a Notion database) is not imported'],
    ]);
  });
});

describe("Confluence's HTML space export", { timeout: 30_000 }, () => {
  const page = (title: string, crumbs: [string, string][], body: string) =>
    [
      '<!DOCTYPE html><html><head><title>Engineering : ',
      title,
      '</title><link rel="stylesheet" href="styles/site.css"></head><body><div id="page"><div id="main">',
      '<div id="main-header"><div id="breadcrumb-section"><ol id="breadcrumbs">',
      ...crumbs.map(
        ([href, text], i) => `<li${i === 0 ? ' class="first"' : ''}><span><a href="${href}">${text}</a></span></li>`,
      ),
      '</ol></div><h1 id="title-heading" class="pagetitle"><span id="title-text"> Engineering : ',
      title,
      ' </span></h1></div><div id="content" class="view"><div class="page-metadata">Created by Ann</div>',
      `<div id="main-content" class="wiki-content group">${body}</div>`,
      '<div class="pageSection group"><h2 id="attachments" class="pageSectionTitle">Attachments:</h2>',
      '<img src="images/icons/bullet_blue.gif"> <a href="attachments/200/300.png">arch.png</a></div>',
      '</div></div><div id="footer">Document generated by Confluence</div></div></body></html>',
    ].join('');
  const SPACE: [string, string] = ['index.html', 'Engineering'];
  const HOME: [string, string] = ['Home_100.html', 'Home'];

  it('builds the tree from the breadcrumbs, in the order index.html lists, with code, tasks and images', async () => {
    const zip = await zipOf({
      'ENG/index.html':
        '<html><head><title>Engineering</title></head><body><div id="main-content"><h2>Available Pages:</h2><ul>' +
        '<li><a href="Home_100.html">Home</a><ul><li><a href="Zebra-notes_300.html">Zebra notes</a></li>' +
        '<li><a href="Architecture_200.html">Architecture</a><ul><li><a href="Services_400.html">Services</a></li></ul></li>' +
        '</ul></li></ul></div></body></html>',
      'ENG/Home_100.html': page(
        'Home',
        [SPACE],
        '<p>Welcome. Read <a href="Architecture_200.html">the architecture</a>.</p>' +
          '<div class="code panel pdl"><div class="codeContent panelContent pdl">' +
          '<pre class="syntaxhighlighter-pre" data-syntaxhighlighter-params="brush: java; gutter: false; theme: Confluence">' +
          'class A {\n  int x;\n}</pre></div></div>',
      ),
      'ENG/Architecture_200.html': page(
        'Architecture',
        [SPACE, HOME],
        '<p>Overview <img class="emoticon emoticon-smile" src="images/icons/emoticons/smile.svg" alt="(smile)"></p>' +
          '<p><span class="confluence-embedded-file-wrapper"><img class="confluence-embedded-image" src="attachments/200/300.png" data-image-src="attachments/200/300.png"></span></p>' +
          '<ul class="inline-task-list"><li class="checked" data-inline-task-id="1">ship it</li><li data-inline-task-id="2">document it</li></ul>' +
          '<div class="table-wrap"><table class="confluenceTable"><tbody><tr><th class="confluenceTh">服务</th><th class="confluenceTh">Owner</th></tr>' +
          '<tr><td class="confluenceTd"><p>网关</p><p>second line</p></td><td class="confluenceTd">Ann</td></tr></tbody></table></div>',
      ),
      'ENG/Zebra-notes_300.html': page('Zebra notes', [SPACE, HOME], '<p>Z.</p>'),
      'ENG/Services_400.html': page(
        'Services',
        [SPACE, HOME, ['Architecture_200.html', 'Architecture']],
        '<p><a href="/display/ENG/Elsewhere">server link</a></p>',
      ),
      'ENG/attachments/200/300.png': PNG,
      'ENG/images/icons/bullet_blue.gif': Buffer.from('GIF89a'),
      'ENG/styles/site.css': 'body{}',
    });
    const plan = await planUpload('Confluence-space-export.zip', zip, { seed: 'c' });
    expectWellFormed(plan);
    expect(plan.documents.map((d) => d.title)).toEqual(['Home', 'Zebra notes', 'Architecture', 'Services']);
    const home = byTitle(plan, 'Home');
    const arch = byTitle(plan, 'Architecture');
    expect(home.parentKey).toBeNull();
    expect(byTitle(plan, 'Zebra notes')).toMatchObject({ parentKey: home.key, order: 0 });
    expect(arch).toMatchObject({ parentKey: home.key, order: 1 });
    expect(byTitle(plan, 'Services').parentKey).toBe(arch.key);

    expect(inline(home.content).find((i) => i.type === 'link')?.href).toBe(`${DOCUMENT_LINK}${arch.key}`);
    const code = home.content.find((b) => b.type === 'codeBlock') as Json;
    expect((code.props as Json).language).toBe('java');
    expect(textOf([code])).toBe('class A {\n  int x;\n}');
    expect(JSON.stringify(home.content)).not.toContain('Created by'); // page furniture is left out

    expect(textOf(arch.content)).toContain('Overview (smile)');
    expect(
      arch.content.filter((b) => b.type === 'checkListItem').map((b) => [textOf([b]), (b.props as Json).checked]),
    ).toEqual([
      ['ship it', true],
      ['document it', false],
    ]);
    const table = arch.content.find((b) => b.type === 'table') as Json;
    expect(textOf([table])).toContain('网关');
    expect(textOf([table])).toContain('second line');
    expect(plan.attachments).toMatchObject([{ documentKey: arch.key, fileName: '300.png', mime: 'image/png' }]);
    expect(arch.content.find((b) => b.type === 'image')?.props).toMatchObject({
      url: `${ATTACHMENT_URL}${plan.attachments[0].key}`,
    });
    // The server-relative link cannot be followed; Confluence's icons and CSS raise no warning.
    expect(plan.warnings.map((w) => [w.code, w.path])).toEqual([['UNRESOLVED_LINK', 'ENG/Services_400.html']]);
  });
});

describe("our own tree export's _tree.json", () => {
  it('orders the files it lists as it lists them, the others after them by name, and is no document itself', async () => {
    const manifest = {
      kind: 'wiki-tree-export',
      version: 1,
      documents: ['Zulu.md', 'Zulu/b.md', 'Zulu/a.md', 'Alpha.md'],
    };
    const zip = await zipOf({
      'export/_tree.json': JSON.stringify(manifest),
      'export/Alpha.md': '# Alpha\n',
      'export/Zulu.md': '# Zulu\n',
      'export/Zulu/a.md': '# a\n',
      'export/Zulu/b.md': '# b\n',
      'export/Zulu/c.md': '# c\n',
      'export/Mike.md': '# Mike\n',
    });
    const plan = await planUpload('export.zip', zip, { seed: 'job-2' });
    expect(plan.documents.map((d) => [d.title, d.order])).toEqual([
      ['Zulu', 0],
      ['b', 0],
      ['a', 1],
      ['c', 2],
      ['Alpha', 1],
      ['Mike', 2],
    ]);
    expect(plan.warnings).toEqual([]);
  });
});

describe('text encodings', { timeout: 30_000 }, () => {
  const bytes = (...parts: Array<string | number[]>) =>
    Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))));
  // 日本語 in Shift_JIS; é and € in windows-1252.
  const NIHONGO_SJIS = [0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea];
  const E_ACUTE = [0xe9];
  const EURO = [0x80];
  const only = async (name: string, file: Buffer) => {
    const plan = await planUpload(name, file);
    expect(plan.documents).toHaveLength(1);
    return plan.documents[0];
  };

  it('reads HTML in the charset its <meta> names', async () => {
    const cp1252 = await only(
      'a.html',
      bytes(
        '<html><head><meta charset="windows-1252"><title>Caf',
        E_ACUTE,
        '</title></head><body><p>5 ',
        EURO,
        ' each</p></body></html>',
      ),
    );
    expect(cp1252.title).toBe('Café');
    expect(textOf(cp1252.content)).toBe('5 € each');

    // The older form; iso-8859-1 is read as windows-1252, as browsers read it.
    const latin1 = await only(
      'b.html',
      bytes(
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1"></head>',
        '<body><p>r',
        E_ACUTE,
        'sum',
        E_ACUTE,
        ' ',
        EURO,
        '</p></body></html>',
      ),
    );
    expect(textOf(latin1.content)).toBe('résumé €');

    const sjis = await only(
      'c.html',
      bytes(
        '<html><head><meta charset="Shift_JIS"><title>',
        NIHONGO_SJIS,
        '</title></head><body><p>',
        NIHONGO_SJIS,
        '</p></body></html>',
      ),
    );
    expect(sjis.title).toBe('日本語');
    expect(textOf(sjis.content)).toBe('日本語');
  });

  it('lets a byte order mark decide over the <meta>, for HTML and Markdown', async () => {
    const utf16le = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('<meta charset="windows-1252"><p>日本語 é €</p>', 'utf16le'),
    ]);
    expect(textOf((await only('le.html', utf16le)).content)).toBe('日本語 é €');

    const utf16be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('# 見出し\n\nété', 'utf16le').swap16()]);
    const be = await only('be.md', utf16be);
    expect(be.title).toBe('見出し');
    expect(textOf(be.content)).toBe('été');

    // With the UTF-8 mark left in, the first line would not be a heading.
    const utf8 = await only('bom.md', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('# Título\n\nñ')]));
    expect(utf8.title).toBe('Título');
    expect(textOf(utf8.content)).toBe('ñ');
  });

  it('reads UTF-8 when nothing is declared, or an unknown charset is', async () => {
    expect(textOf((await only('a.html', Buffer.from('<p>é € 日本語</p>'))).content)).toBe('é € 日本語');
    const unknown = Buffer.from('<meta charset="no-such-charset"><p>é</p>');
    expect(textOf((await only('b.html', unknown)).content)).toBe('é');
  });
});
