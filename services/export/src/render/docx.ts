import {
  AlignmentType,
  BorderStyle,
  Document,
  ExternalHyperlink,
  HeadingLevel,
  ImageRun,
  LevelFormat,
  Packer,
  Paragraph,
  type ParagraphChild,
  ShadingType,
  Table,
  TableCell,
  TableRow,
  TextRun,
  WidthType,
} from 'docx';
import { BACKGROUNDS, type Block, COLOURS, type ExportDocument, type Run } from '../domain/model.js';
import type { LoadedImage } from './images.js';

/**
 * Word through `docx`: real heading styles (Word's navigation pane and table of contents see
 * them), real numbered and bulleted lists (Word's numbering, nesting by level), check lists as
 * ☐/☑ items, tables with a repeated header row, code in a monospace shaded paragraph, quotes
 * with a left border, embedded images.
 */

const MONO = 'Consolas';
const HEADINGS = [HeadingLevel.HEADING_1, HeadingLevel.HEADING_2, HeadingLevel.HEADING_3] as const;
const LEVELS = 9; // Word's list levels
const INDENT = 360; // twips per nesting level
/** The text width of an A4 page with Word's default margins, in pixels at 96 dpi. */
const MAX_IMAGE_WIDTH = 600;

const bulletLevels = Array.from({ length: LEVELS }, (_, level) => ({
  level,
  format: LevelFormat.BULLET,
  text: '•◦▪'.charAt(level % 3),
  alignment: AlignmentType.LEFT,
  style: { paragraph: { indent: { left: INDENT * (level + 1), hanging: 260 } } },
}));
const numberLevels = Array.from({ length: LEVELS }, (_, level) => ({
  level,
  format: level % 3 === 0 ? LevelFormat.DECIMAL : level % 3 === 1 ? LevelFormat.LOWER_LETTER : LevelFormat.LOWER_ROMAN,
  text: `%${level + 1}.`,
  alignment: AlignmentType.LEFT,
  style: { paragraph: { indent: { left: INDENT * (level + 1), hanging: 300 } } },
}));

function textRuns(run: Run): TextRun[] {
  // A line break inside a run is a Word break, not a new paragraph.
  return run.text.split('\n').map(
    (text, i) =>
      new TextRun({
        text,
        break: i > 0 ? 1 : undefined,
        bold: run.bold,
        italics: run.italic,
        underline: run.underline || run.href ? {} : undefined,
        strike: run.strike,
        font: run.code ? MONO : undefined,
        color: run.href ? '0563C1' : run.colour ? COLOURS[run.colour] : undefined,
        shading: run.background
          ? { type: ShadingType.CLEAR, fill: BACKGROUNDS[run.background], color: 'auto' }
          : run.code
            ? { type: ShadingType.CLEAR, fill: 'F0F1F3', color: 'auto' }
            : undefined,
      }),
  );
}

function inline(runs: Run[]): ParagraphChild[] {
  return runs.flatMap((run): ParagraphChild[] =>
    run.href ? [new ExternalHyperlink({ link: run.href, children: textRuns(run) })] : textRuns(run),
  );
}

interface Context {
  images: Map<string, LoadedImage>;
  /** A new numbering instance per numbered list, so that each list counts from 1. */
  nextInstance: number;
}

function imageParagraphs(block: Extract<Block, { kind: 'image' }>, ctx: Context, level: number): Paragraph[] {
  const image = block.url ? ctx.images.get(block.url) : undefined;
  const out: Paragraph[] = [];
  if (image) {
    const wanted = Math.min(block.width ?? image.width, MAX_IMAGE_WIDTH);
    const scale = wanted / image.width;
    out.push(
      new Paragraph({
        keepNext: Boolean(block.caption),
        indent: level ? { left: INDENT * level } : undefined,
        children: [
          new ImageRun({
            type: image.type,
            data: image.data,
            transformation: { width: Math.round(image.width * scale), height: Math.round(image.height * scale) },
            altText: { name: block.name || 'image', description: block.caption, title: block.name || 'image' },
          }),
        ],
      }),
    );
  } else {
    const label = block.name || block.caption || 'Image';
    out.push(new Paragraph({ children: inline([{ text: label, href: block.url ?? undefined }]) }));
  }
  if (block.caption)
    out.push(new Paragraph({ children: [new TextRun({ text: block.caption, italics: true, size: 18 })] }));
  return out;
}

function blockToDocx(block: Block, ctx: Context, level: number, instance: number): Array<Paragraph | Table> {
  const indent = level ? { left: INDENT * level } : undefined;
  switch (block.kind) {
    case 'heading':
      return [
        new Paragraph({ heading: HEADINGS[block.level - 1], children: inline(block.runs) }),
        ...blocksToDocx(block.children, ctx, level),
      ];
    case 'paragraph':
      return [new Paragraph({ indent, children: inline(block.runs) }), ...blocksToDocx(block.children, ctx, level + 1)];
    case 'item': {
      const depth = Math.min(level, LEVELS - 1);
      const paragraph =
        block.list === 'check'
          ? new Paragraph({
              indent: { left: INDENT * (level + 1), hanging: 300 },
              children: [new TextRun({ text: block.checked ? '☑ ' : '☐ ' }), ...inline(block.runs)],
            })
          : new Paragraph({
              numbering: { reference: block.list === 'numbered' ? 'numbers' : 'bullets', level: depth, instance },
              children: inline(block.runs),
            });
      return [paragraph, ...blocksToDocx(block.children, ctx, level + 1)];
    }
    case 'code': {
      const runs = block.text
        .split('\n')
        .map((line, i) => new TextRun({ text: line, font: MONO, size: 19, break: i > 0 ? 1 : undefined }));
      return [
        new Paragraph({
          indent,
          keepLines: true,
          shading: { type: ShadingType.CLEAR, fill: 'F6F8FA', color: 'auto' },
          border: {
            top: { style: BorderStyle.SINGLE, size: 4, color: 'D0D7DE', space: 4 },
            bottom: { style: BorderStyle.SINGLE, size: 4, color: 'D0D7DE', space: 4 },
            left: { style: BorderStyle.SINGLE, size: 4, color: 'D0D7DE', space: 4 },
            right: { style: BorderStyle.SINGLE, size: 4, color: 'D0D7DE', space: 4 },
          },
          children: runs,
        }),
      ];
    }
    case 'quote':
      return [
        new Paragraph({
          indent: { left: INDENT * (level + 1) },
          border: { left: { style: BorderStyle.SINGLE, size: 18, color: 'D0D7DE', space: 8 } },
          children: inline(block.runs.map((run) => ({ ...run, colour: run.colour ?? 'gray' }))),
        }),
        ...blocksToDocx(block.children, ctx, level + 1),
      ];
    case 'table': {
      if (block.rows.length === 0) return [];
      const rows = block.rows.map(
        (cells, r) =>
          new TableRow({
            tableHeader: r < block.headerRows,
            cantSplit: true,
            children: cells.map(
              (runs) =>
                new TableCell({
                  shading:
                    r < block.headerRows ? { type: ShadingType.CLEAR, fill: 'F6F8FA', color: 'auto' } : undefined,
                  children: [
                    new Paragraph({
                      children: inline(r < block.headerRows ? runs.map((run) => ({ ...run, bold: true })) : runs),
                    }),
                  ],
                }),
            ),
          }),
      );
      // Word needs a paragraph between two tables, or it joins them.
      return [new Table({ rows, width: { size: 100, type: WidthType.PERCENTAGE } }), new Paragraph({})];
    }
    case 'image':
      return imageParagraphs(block, ctx, level);
    case 'media': {
      const label = block.name || block.caption || block.media;
      return [new Paragraph({ indent, children: inline([{ text: label, href: block.url ?? undefined }]) })];
    }
    case 'divider':
      return [
        new Paragraph({
          border: { bottom: { style: BorderStyle.SINGLE, size: 6, color: 'D0D7DE', space: 1 } },
          children: [],
        }),
      ];
  }
}

function blocksToDocx(blocks: Block[], ctx: Context, level: number): Array<Paragraph | Table> {
  const out: Array<Paragraph | Table> = [];
  let instance = 0;
  let previous: Block | undefined;
  for (const block of blocks) {
    if (block.kind === 'item' && !(previous?.kind === 'item' && previous.list === block.list)) {
      instance = ctx.nextInstance++;
    }
    out.push(...blockToDocx(block, ctx, level, instance));
    previous = block;
  }
  return out;
}

export async function renderDocx(doc: ExportDocument, images: Map<string, LoadedImage> = new Map()): Promise<Buffer> {
  const ctx: Context = { images, nextInstance: 1 };
  const body = blocksToDocx(doc.blocks, ctx, 0);
  const title = doc.title.trim()
    ? [new Paragraph({ heading: HeadingLevel.TITLE, children: [new TextRun(doc.title)] })]
    : [];
  const document = new Document({
    title: doc.title,
    creator: 'Wiki',
    styles: { default: { document: { run: { font: 'Calibri', size: 22 } } } },
    numbering: {
      config: [
        { reference: 'bullets', levels: bulletLevels },
        { reference: 'numbers', levels: numberLevels },
      ],
    },
    sections: [{ children: [...title, ...body] }],
  });
  return Packer.toBuffer(document);
}
