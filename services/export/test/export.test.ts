import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  addMember,
  createDocument,
  createWorkspace,
  eventually,
  paragraph,
  type SignedInUser,
  type Stack,
  signInNew,
} from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { richBlocks } from './fixtures.js';
import { docxPart, docxParts, download, exportFiles, json, pdfOutline, pdfText, startExportStack } from './helpers.js';

const EXPECTED_MARKDOWN = `# Release plan

# Overview

Plain, **bold**, *italic*, <u>under</u>, ~~gone~~, \`x = 1\` and red 1 \\* 2 \\_3\\_ \\<b\\>

[safe link](<https://example.com/a?b=1>) script link data link [mail](<mailto:ada@example.com>) hi @Ada Lovelace

## Lists

- apples
  - green
- pears

1. first
2. second
   1. second.a

- [x] done
- [ ] todo

### Data

| Name | Qty |
| --- | --- |
| bolts \\| nuts | 12 |
| washers | 7 |

\`\`\`typescript
const a = \`x\`;
console.log(a);
\`\`\`

> Simplicity is prerequisite for reliability.

![Chart](</api/v1/attachments/file?url=workspaces%2Fw%2Fdocuments%2Fd%2Fchart.png>)
*Chart*

[report.pdf](<https://files.example.com/report.pdf>)

clip.mp4

中文内容 日本語のテキスト 한국어 텍스트
`;

let stack: Stack;
let owner: SignedInUser;
let docId: string;
let workspaceId: string;

beforeAll(async () => {
  stack = await startExportStack();
  owner = await signInNew(stack, 'Owner');
  workspaceId = (await createWorkspace(stack, owner)).id;
  docId = (await createDocument(stack, owner, { workspaceId, title: 'Release plan', content: richBlocks() })).id;
});

afterAll(async () => {
  await stack?.stop();
});

describe('GET /documents/{id}/export', () => {
  it('answers Markdown (GFM) exactly, as text/markdown with the title as file name', async () => {
    const res = await download(stack, owner.token, docId, 'markdown');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''Release%20plan.md");
    expect(res.body.toString('utf8')).toBe(EXPECTED_MARKDOWN);
  });

  it('answers Word with real headings, numbered and bulleted lists, a table with a header row and safe links only', async () => {
    const res = await download(stack, owner.token, docId, 'docx');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    expect(res.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''Release%20plan.docx");
    expect(res.body.subarray(0, 2).toString()).toBe('PK');
    const xml = await docxPart(res.body);
    // The markup of the paragraph that holds `text`, up to the text.
    const paragraphOf = (text: string) => {
      const at = xml.indexOf(`>${text}</w:t>`);
      expect(at, `"${text}" is in the document`).toBeGreaterThan(-1);
      return xml.slice(xml.lastIndexOf('<w:p>', at), at);
    };
    expect(paragraphOf('Overview')).toContain('<w:pStyle w:val="Heading1"/>');
    expect(paragraphOf('Lists')).toContain('<w:pStyle w:val="Heading2"/>');
    expect(paragraphOf('Data')).toContain('<w:pStyle w:val="Heading3"/>');
    // List items are Word numbering (w:numPr) with their nesting level.
    expect(paragraphOf('apples')).toMatch(/<w:numPr><w:ilvl w:val="0"\/><w:numId w:val="\d+"\/><\/w:numPr>/);
    expect(paragraphOf('green')).toMatch(/<w:ilvl w:val="1"\/>/);
    expect(paragraphOf('second.a')).toMatch(/<w:ilvl w:val="1"\/>/);
    expect(xml).toContain('>☑ </w:t>');
    expect(xml).toContain('>☐ </w:t>');
    // The table: its first row repeats as a header, cells hold the text.
    expect(xml).toMatch(/<w:tbl>[\s\S]*<w:tblHeader\/>[\s\S]*>Name<\/w:t>[\s\S]*>bolts \| nuts<\/w:t>[\s\S]*<\/w:tbl>/);
    expect(xml).toContain('>const a = `x`;</w:t>');
    expect(xml).toContain('>中文内容 日本語のテキスト 한국어 텍스트</w:t>');
    expect(xml).toContain('> script link data link </w:t>');
    // Links: the safe ones are hyperlink relationships, the others none at all.
    const rels = await docxPart(res.body, 'word/_rels/document.xml.rels');
    expect(rels).toContain('Target="https://example.com/a?b=1"');
    expect(rels).toContain('Target="mailto:ada@example.com"');
    expect(rels).not.toMatch(/javascript:|data:text/);
    expect(await docxParts(res.body)).toContain('word/numbering.xml');
  });

  it('answers a PDF whose text, CJK included, reads back, whose headings are bookmarks and whose only links are safe', async () => {
    const res = await download(stack, owner.token, docId, 'pdf');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''Release%20plan.pdf");
    expect(res.body.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(res.body);
    for (const expected of [
      'Release plan',
      'Overview',
      'bold',
      '1 * 2 _3_ <b>',
      'safe link script link data link mail hi @Ada Lovelace',
      'apples',
      'second.a',
      'bolts | nuts',
      'const a = `x`;',
      'Simplicity is prerequisite for reliability.',
      'report.pdf',
      '中文内容 日本語のテキスト 한국어 텍스트',
    ]) {
      expect(text).toContain(expected);
    }
    expect(await pdfOutline(res.body)).toEqual(['1:Release plan', '1:Overview', '2:Lists', '3:Data']);
    const raw = res.body.toString('latin1');
    expect(raw).toContain('/URI (https://example.com/a?b=1)');
    expect(raw).toContain('/URI (mailto:ada@example.com)');
    expect(raw).not.toMatch(/\/URI \((javascript|data):/);
    expect(raw).not.toMatch(/\/(JavaScript|JS) /);
  });

  it('names the file safely whatever the title holds', async () => {
    const doc = await createDocument(stack, owner, {
      workspaceId,
      title: 'Q3 "plan"/../draft: ✓ 100%',
      content: [paragraph('x')],
    });
    const res = await download(stack, owner.token, doc.id, 'markdown');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(
      "attachment; filename*=UTF-8''Q3%20_plan__.._draft_%20%E2%9C%93%20100%25.md",
    );
  });

  it('refuses a bad format, a missing format and a malformed id with 400 VALIDATION_ERROR', async () => {
    for (const [id, format] of [
      [docId, 'html'],
      [docId, ''],
      ['not-a-uuid', 'pdf'],
    ] as const) {
      const res = await download(stack, owner.token, id, format);
      expect(res.status).toBe(400);
      expect(json(res)).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
    const res = await fetch(`${stack.gatewayUrl}/api/v1/documents/${docId}/export`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(res.status).toBe(400);
  });

  it('lets VIEWERs export, hides the document from non-members (404), and needs a signed-in caller (401)', async () => {
    const viewer = await signInNew(stack, 'Viewer');
    const outsider = await signInNew(stack, 'Outsider');
    await addMember(stack, workspaceId, owner, viewer, 'VIEWER');
    expect((await download(stack, viewer.token, docId, 'markdown')).status).toBe(200);

    const hidden = await download(stack, outsider.token, docId, 'pdf');
    expect(hidden.status).toBe(404);
    expect(json(hidden)).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });

    const missing = await download(stack, owner.token, '00000000-0000-4000-8000-000000000000', 'docx');
    expect(missing.status).toBe(404);

    const anonymous = await download(stack, undefined, docId, 'markdown');
    expect(anonymous.status).toBe(401);
  });

  it('exports 10 documents at once for four people, each file its own, and leaves no file behind in storage', async () => {
    // At most three running exports a person (EXPORT_CONCURRENT_PER_USER): 3 + 3 + 3 + 1.
    const viewers = await Promise.all([1, 2, 3].map((n) => signInNew(stack, `Reader ${n}`)));
    for (const viewer of viewers) await addMember(stack, workspaceId, owner, viewer, 'VIEWER');
    const people = [owner, ...viewers];
    const docs = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        createDocument(stack, owner, { workspaceId, title: `Parallel ${i}`, content: [paragraph(`body number ${i}`)] }),
      ),
    );
    const formats = ['pdf', 'docx', 'markdown'];
    const results = await Promise.all(
      docs.map((doc, i) => download(stack, people[i % 4]!.token, doc.id, formats[i % 3]!)),
    );
    for (const [i, res] of results.entries()) {
      expect(res.status, `export ${i}`).toBe(200);
      const format = formats[i % 3];
      const text =
        format === 'pdf'
          ? await pdfText(res.body)
          : format === 'docx'
            ? await docxPart(res.body)
            : res.body.toString('utf8');
      expect(text).toContain(`body number ${i}`);
    }
    // Each file was deleted once sent.
    await eventually(async () => expect(await exportFiles(stack.config)).toEqual([]));
  });
});

describe('OpenAPI', () => {
  it('describes the export route with its formats and a binary answer', async () => {
    const res = await fetch(`${stack.serviceUrls.export}/openapi.json`);
    const spec = (await res.json()) as { paths: Record<string, any> };
    expect(Object.keys(spec.paths).sort()).toEqual([
      '/api/v1/documents/import',
      '/api/v1/documents/{id}/export',
      '/api/v1/jobs/{id}',
      '/api/v1/jobs/{id}/download',
      '/api/v1/workspaces/{id}/export',
    ]);
    const get = spec.paths['/api/v1/documents/{id}/export'].get;
    const format = get.parameters.find((p: { name: string }) => p.name === 'format');
    expect(format).toMatchObject({ in: 'query', required: true });
    expect(format.schema.enum).toEqual(['pdf', 'docx', 'markdown']);
    expect(Object.keys(get.responses).sort()).toEqual(['200', '400', '401', '403', '404', '429', '503']);
    // The tree export (ARCHITECTURE 5.19): a job, four formats.
    const post = spec.paths['/api/v1/documents/{id}/export'].post;
    const body = post.requestBody.content['application/json'].schema;
    expect(body.properties.format.enum).toEqual(['markdown', 'html', 'pdf', 'docx']);
    expect(Object.keys(post.responses).sort()).toEqual(['202', '400', '401', '403', '404', '409', '429', '503']);
    const download = spec.paths['/api/v1/jobs/{id}/download'].get;
    expect(Object.keys(download.responses).sort()).toEqual(['200', '400', '401', '404', '409', '410', '503']);
    // The import (ARCHITECTURE 5.19): a multipart upload that starts a job.
    const upload = spec.paths['/api/v1/documents/import'].post;
    expect(Object.keys(upload.responses).sort()).toEqual([
      '202',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '429',
      '503',
    ]);
  });
});

describe('content that points elsewhere (SSRF)', () => {
  let trap: Server;
  let hits: string[];
  let trapUrl: string;

  beforeAll(async () => {
    hits = [];
    trap = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/png' }).end('x');
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => trap.close(resolve));
  });

  it('fetches nothing: images and links to 127.0.0.1 or file://, and markup in the text, stay unrequested', async () => {
    const content = [
      { type: 'image', props: { url: `${trapUrl}/image.png`, caption: 'loopback image' } },
      { type: 'image', props: { url: 'file:///etc/passwd', caption: 'file image' } },
      { type: 'image', props: { url: `${trapUrl}/api/v1/attachments/file?url=x`, caption: 'lookalike' } },
      { type: 'video', props: { url: `${trapUrl}/video.mp4`, name: 'clip' } },
      { type: 'paragraph', content: [{ type: 'link', href: `${trapUrl}/link`, content: 'loopback link' }] },
      { type: 'paragraph', content: [{ type: 'link', href: 'file:///etc/passwd', content: 'file link' }] },
      {
        type: 'paragraph',
        content: `<img src="${trapUrl}/inline.png"><link rel="stylesheet" href="${trapUrl}/style.css"><iframe src="${trapUrl}/frame"></iframe>`,
      },
      { type: 'codeBlock', props: { language: 'html' }, content: `<script src="${trapUrl}/script.js"></script>` },
    ];
    const doc = await createDocument(stack, owner, { workspaceId, title: 'Trap', content });
    for (const format of ['pdf', 'docx', 'markdown']) {
      const res = await download(stack, owner.token, doc.id, format);
      expect(res.status, format).toBe(200);
    }
    expect(hits).toEqual([]);
    // The PDF shows the markup as text and keeps no file: link.
    const pdf = await download(stack, owner.token, doc.id, 'pdf');
    const text = await pdfText(pdf.body);
    expect(text).toContain(`<img src="${trapUrl}/inline.png">`);
    expect(pdf.body.toString('latin1')).not.toContain('/URI (file:');
    expect(hits).toEqual([]);
  });
});
