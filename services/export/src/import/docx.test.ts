import {
  Document,
  ExternalHyperlink,
  HeadingLevel,
  ImageRun,
  Packer,
  Paragraph,
  Table,
  TableCell,
  TableRow,
  TextRun,
} from 'docx';
import { describe, expect, it } from 'vitest';
import { readDocument } from '../domain/model.js';
import { renderDocx } from '../render/docx.js';
import type { Json } from './blocks.js';
import { ATTACHMENT_URL, planUpload } from './index.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });

// The first conversion loads BlockNote's parsers and jsdom: seconds on a busy machine.
describe('a Word file', { timeout: 30_000 }, () => {
  it('comes in with its headings, styles, lists, table, link and image', async () => {
    const doc = new Document({
      sections: [
        {
          children: [
            new Paragraph({ text: 'Quarterly report', heading: HeadingLevel.HEADING_1 }),
            new Paragraph({
              children: [
                new TextRun('Revenue '),
                new TextRun({ text: 'grew', bold: true }),
                new TextRun(', costs '),
                new TextRun({ text: 'fell', italics: true }),
                new TextRun(', plans '),
                new TextRun({ text: 'dropped', strike: true }),
                new TextRun('. '),
                new ExternalHyperlink({ link: 'https://example.com/q3', children: [new TextRun('Details')] }),
              ],
            }),
            new Paragraph({ text: '地域別の結果', heading: HeadingLevel.HEADING_2 }),
            new Paragraph({ text: 'Europe', bullet: { level: 0 } }),
            new Paragraph({ text: 'Germany', bullet: { level: 1 } }),
            new Paragraph({ text: 'Asia', bullet: { level: 0 } }),
            new Table({
              rows: [
                new TableRow({ children: [cell('Region'), cell('Growth')] }),
                new TableRow({ children: [cell('東京'), cell('12%')] }),
              ],
            }),
            new Paragraph({
              children: [new ImageRun({ type: 'png', data: PNG, transformation: { width: 10, height: 10 } })],
            }),
          ],
        },
      ],
    });
    const plan = await planUpload('Q3 report.docx', await Packer.toBuffer(doc), { seed: 'w' });
    expect(plan.documents).toHaveLength(1);
    const [report] = plan.documents;
    expect(report.title).toBe('Quarterly report'); // the first Heading 1, out of the body
    const types = report.content.map((b) => b.type);
    expect(types[0]).toBe('paragraph');
    const texts = (report.content[0].content as Json[]).filter((i) => i.type === 'text');
    expect(texts).toContainEqual({ type: 'text', text: 'grew', styles: { bold: true } });
    expect(texts).toContainEqual({ type: 'text', text: 'fell', styles: { italic: true } });
    expect(texts).toContainEqual({ type: 'text', text: 'dropped', styles: { strike: true } });
    expect((report.content[0].content as Json[]).find((i) => i.type === 'link')).toMatchObject({
      href: 'https://example.com/q3',
    });
    expect(report.content[1]).toMatchObject({ type: 'heading', props: { level: 2 } });
    const bullets = report.content.filter((b) => b.type === 'bulletListItem');
    expect(bullets).toHaveLength(2);
    expect((bullets[0].children as Json[])[0]).toMatchObject({ type: 'bulletListItem' });
    const table = report.content.find((b) => b.type === 'table') as Json;
    expect(JSON.stringify(table)).toContain('東京');
    expect(plan.attachments).toHaveLength(1);
    expect(plan.attachments[0]).toMatchObject({ documentKey: report.key, mime: 'image/png', fileName: 'image-1.png' });
    expect(plan.attachments[0].bytes.equals(PNG)).toBe(true);
    expect(report.content.find((b) => b.type === 'image')?.props).toMatchObject({
      url: `${ATTACHMENT_URL}${plan.attachments[0].key}`,
    });
    expect(plan.warnings).toEqual([]);
  });

  it('takes the title of a Word file this wiki exported from its Title paragraph, not from the file name', async () => {
    const exported = await renderDocx(
      readDocument('Plans / 2027: what "next" means', [
        { id: 'h', type: 'heading', props: { level: 1 }, content: [{ type: 'text', text: 'Goals', styles: {} }] },
        { id: 'p', type: 'paragraph', props: {}, content: [{ type: 'text', text: 'Ship it.', styles: {} }] },
      ]),
    );
    // The zip's name for it: no slash, colon or quotes.
    const plan = await planUpload('Plans _ 2027_ what _next_ means.docx', exported, { seed: 'w' });
    const [doc] = plan.documents;
    expect(doc.title).toBe('Plans / 2027: what "next" means');
    expect(doc.content[0]).toMatchObject({ type: 'heading', props: { level: 1 } });
    expect(JSON.stringify(doc.content)).toContain('Ship it.');
  });
});
