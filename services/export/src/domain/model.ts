/**
 * One model of a document for every output format: BlockNote's JSON (what the editor saves) is
 * read once into these plain shapes, with every link already checked, so the three renderers
 * share one reading of the content and one rule for what survives.
 */

/** BlockNote's named text colours; anything else is dropped (it would go into CSS and Word XML). */
export const COLOURS = {
  gray: '9B9A97',
  brown: '64473A',
  red: 'E03E3E',
  orange: 'D9730D',
  yellow: 'DFAB01',
  green: '4D6461',
  blue: '0B6E99',
  purple: '6940A5',
  pink: 'AD1A72',
} as const;
export const BACKGROUNDS = {
  gray: 'EBECED',
  brown: 'E9E5E3',
  red: 'FBE4E4',
  orange: 'F6E9D9',
  yellow: 'FBF3DB',
  green: 'DDEDEA',
  blue: 'DDEBF1',
  purple: 'EAE4F2',
  pink: 'F4DFEB',
} as const;
export type Colour = keyof typeof COLOURS;

/** A piece of inline text with one set of styles. */
export interface Run {
  text: string;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strike?: boolean;
  code?: boolean;
  colour?: Colour;
  background?: Colour;
  /** A link that passed `safeHref`; a link that did not keeps its text and loses its target. */
  href?: string;
  /** A mention of a user or a document: printed as `@name`. */
  mention?: boolean;
}

export type ListKind = 'bullet' | 'numbered' | 'check';

export type Block =
  | { kind: 'heading'; level: 1 | 2 | 3; runs: Run[]; children: Block[] }
  | { kind: 'paragraph'; runs: Run[]; children: Block[] }
  | { kind: 'item'; list: ListKind; checked: boolean; runs: Run[]; children: Block[] }
  | { kind: 'code'; language: string; text: string }
  | { kind: 'quote'; runs: Run[]; children: Block[] }
  | { kind: 'table'; rows: Run[][][]; headerRows: number }
  | { kind: 'image'; url: string | null; name: string; caption: string; width: number | null }
  | { kind: 'media'; media: 'file' | 'video' | 'audio'; url: string | null; name: string; caption: string }
  | { kind: 'divider' };

export interface ExportDocument {
  title: string;
  blocks: Block[];
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Nesting deeper than this is flattened: a hostile document must not overflow the renderers' stacks. */
const MAX_DEPTH = 24;

/**
 * The link a reader may follow: an absolute http, https or mailto URL, or a path on this site
 * (what the editor stores for attachments). `javascript:`, `data:`, `file:` and the rest give
 * null, and so does anything the URL parser refuses.
 */
export function safeHref(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  // Browsers drop tabs and newlines inside URLs and ignore leading blanks: `java\tscript:` is javascript:.
  const value = raw.replace(/[\t\n\r]/g, '').trim();
  if (value === '' || value.length > 4096) return null;
  if (value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\')) return value;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return null;
  }
  if (parsed.protocol === 'http:' || parsed.protocol === 'https:' || parsed.protocol === 'mailto:') return parsed.href;
  return null;
}

const MENTION_NAME_PROPS = ['name', 'label', 'displayName', 'user', 'title', 'text'];

function mentionName(item: Json): string {
  const props = isObject(item.props) ? item.props : {};
  for (const key of MENTION_NAME_PROPS) {
    const value = props[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return str(item.text);
}

function colourOf(value: unknown): Colour | undefined {
  return typeof value === 'string' && value in COLOURS ? (value as Colour) : undefined;
}

function styledRun(item: Json, href?: string): Run | null {
  const text = str(item.text);
  if (text === '') return null;
  const styles = isObject(item.styles) ? item.styles : {};
  const run: Run = { text };
  if (styles.bold === true) run.bold = true;
  if (styles.italic === true) run.italic = true;
  if (styles.underline === true) run.underline = true;
  if (styles.strike === true || styles.strikethrough === true) run.strike = true;
  if (styles.code === true) run.code = true;
  const colour = colourOf(styles.textColor);
  if (colour) run.colour = colour;
  const background = colourOf(styles.backgroundColor);
  if (background) run.background = background;
  if (href) run.href = href;
  return run;
}

/** Inline content (a string, or styled text, links and mentions) as runs, neighbours with equal styles merged. */
export function readRuns(content: unknown): Run[] {
  const runs: Run[] = [];
  const push = (run: Run | null) => {
    if (!run) return;
    const last = runs[runs.length - 1];
    if (last && sameStyle(last, run)) last.text += run.text;
    else runs.push(run);
  };
  if (typeof content === 'string') {
    push(content ? { text: content } : null);
    return runs;
  }
  if (!Array.isArray(content)) return runs;
  for (const item of content) {
    if (typeof item === 'string') push(item ? { text: item } : null);
    else if (!isObject(item)) continue;
    else if (item.type === 'link') {
      const href = safeHref(item.href) ?? undefined;
      const inner = Array.isArray(item.content) ? item.content : [item.content];
      for (const part of inner) {
        if (typeof part === 'string') push(part ? { text: part, href } : null);
        else if (isObject(part)) push(styledRun(part, href));
      }
    } else if (item.type === 'mention') {
      const name = mentionName(item);
      if (name) push({ text: `@${name}`, mention: true });
    } else if (item.type === 'text' || typeof item.text === 'string') push(styledRun(item));
    else for (const run of readRuns(item.content)) push(run); // custom inline content: the text inside
  }
  return runs;
}

function sameStyle(a: Run, b: Run): boolean {
  return (
    !a.mention &&
    !b.mention &&
    a.bold === b.bold &&
    a.italic === b.italic &&
    a.underline === b.underline &&
    a.strike === b.strike &&
    a.code === b.code &&
    a.colour === b.colour &&
    a.background === b.background &&
    a.href === b.href
  );
}

function readTable(content: unknown): { rows: Run[][][]; headerRows: number } {
  const table = isObject(content) ? content : {};
  const rows: Run[][][] = [];
  for (const row of Array.isArray(table.rows) ? table.rows : []) {
    const cells = isObject(row) && Array.isArray(row.cells) ? row.cells : [];
    // A cell is inline content, or (BlockNote ≥ 0.20) { type: 'tableCell', props, content }.
    rows.push(cells.map((cell) => readRuns(isObject(cell) ? cell.content : cell)));
  }
  const width = Math.max(0, ...rows.map((r) => r.length));
  for (const row of rows) while (row.length < width) row.push([]);
  // The editor marks header rows; a table without the mark still shows its first row as the header.
  const declared = typeof table.headerRows === 'number' ? Math.floor(table.headerRows) : 1;
  return { rows, headerRows: rows.length === 0 ? 0 : Math.min(Math.max(declared, 1), rows.length) };
}

function readBlock(raw: Json, depth: number): Block[] {
  const props = isObject(raw.props) ? raw.props : {};
  const children = readBlocks(raw.children, depth + 1);
  switch (raw.type) {
    case 'heading': {
      const level = Math.min(Math.max(Number(props.level) || 1, 1), 3) as 1 | 2 | 3;
      return [{ kind: 'heading', level, runs: readRuns(raw.content), children }];
    }
    case 'bulletListItem':
    case 'numberedListItem':
    case 'checkListItem':
    case 'toggleListItem': {
      const list: ListKind =
        raw.type === 'numberedListItem' ? 'numbered' : raw.type === 'checkListItem' ? 'check' : 'bullet';
      return [{ kind: 'item', list, checked: props.checked === true, runs: readRuns(raw.content), children }];
    }
    case 'codeBlock':
      return [
        {
          kind: 'code',
          language: codeLanguage(props.language),
          text: readRuns(raw.content)
            .map((r) => r.text)
            .join(''),
        },
      ];
    case 'quote':
      return [{ kind: 'quote', runs: readRuns(raw.content), children }];
    case 'table':
      return [{ kind: 'table', ...readTable(raw.content) }, ...children];
    case 'image': {
      const width = Number(props.previewWidth);
      return [
        {
          kind: 'image',
          url: safeHref(props.url),
          name: str(props.name),
          caption: str(props.caption),
          width: Number.isFinite(width) && width > 0 ? width : null,
        },
        ...children,
      ];
    }
    case 'file':
    case 'video':
    case 'audio':
      return [
        {
          kind: 'media',
          media: raw.type,
          url: safeHref(props.url),
          name: str(props.name),
          caption: str(props.caption),
        },
        ...children,
      ];
    case 'divider':
      return [{ kind: 'divider' }];
    default:
      // A paragraph, or a block type this model does not know: its text is kept as a paragraph.
      return [{ kind: 'paragraph', runs: readRuns(raw.content), children }];
  }
}

/** A language name safe as a Markdown info string and a CSS class: letters, digits, `+#-._`. */
function codeLanguage(value: unknown): string {
  const text = str(value).trim();
  return /^[A-Za-z0-9+#._-]{1,40}$/.test(text) && text !== 'text' ? text : '';
}

function readBlocks(value: unknown, depth: number): Block[] {
  if (!Array.isArray(value)) return [];
  const blocks: Block[] = [];
  for (const raw of value) {
    if (!isObject(raw)) continue;
    if (depth < MAX_DEPTH) blocks.push(...readBlock(raw, depth));
    else for (const flat of flatten(raw)) blocks.push(...readBlock(flat, depth));
  }
  return blocks;
}

/** A block and its descendants in reading order, without children, walked without recursion. */
function flatten(root: Json): Json[] {
  const out: Json[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const next = stack.pop();
    if (!isObject(next)) continue;
    out.push({ ...next, children: [] });
    if (Array.isArray(next.children)) for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i]);
  }
  return out;
}

/** The document's content (the JSON string the document service stores, or its parsed array). */
export function readDocument(title: string, content: unknown): ExportDocument {
  let parsed = content;
  if (typeof content === 'string') {
    try {
      parsed = content.trim() === '' ? [] : JSON.parse(content);
    } catch {
      parsed = [{ type: 'paragraph', content }];
    }
  }
  return { title, blocks: readBlocks(parsed, 0) };
}
