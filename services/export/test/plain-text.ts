/** How links and images are written in a document's plain text (ids differ between workspaces). */
export interface TextRefs {
  link(href: string): string;
  image(url: string): string;
}

type Json = any;

/**
 * A document's BlockNote blocks as plain text, one line per block, indented by nesting, so two
 * documents that a reader would call the same compare equal. Normalised on purpose: block ids,
 * colours, alignment and text styles (bold, italic…) are left out (the comparison is about the
 * text and the structure); spaces at either end of a block's text are trimmed and runs of spaces
 * inside it read as one (Markdown does not keep them); empty paragraphs are left out (the editor
 * keeps one at the end, Markdown drops it); a numbered item reads `1.` whatever its number; an
 * image reads as `refs.image(url)` and its caption, a link as its text and `refs.link(href)`.
 */
export function blocksAsText(blocks: Json[], refs: TextRefs): string {
  const lines: string[] = [];
  const visit = (list: Json[], depth: number) => {
    for (const block of list) {
      const line = blockLine(block, refs);
      if (line !== null) lines.push(`${'  '.repeat(depth)}${line}`);
      visit(Array.isArray(block.children) ? block.children : [], depth + 1);
    }
  };
  visit(blocks, 0);
  return lines.join('\n');
}

const squeeze = (text: string) => text.replace(/[ \t]+/g, ' ').trim();

function inline(content: Json, refs: TextRefs): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((item: Json) => {
      if (item?.type === 'link') return `[${inline(item.content, refs)}](${refs.link(String(item.href))})`;
      return typeof item?.text === 'string' ? item.text : '';
    })
    .join('');
}

function blockLine(block: Json, refs: TextRefs): string | null {
  const props = block.props ?? {};
  const text = squeeze(inline(block.content, refs));
  switch (block.type) {
    case 'paragraph':
      return text === '' ? null : text;
    case 'heading':
      return `${'#'.repeat(Number(props.level ?? 1))} ${text}`;
    case 'bulletListItem':
      return `- ${text}`;
    case 'numberedListItem':
      return `1. ${text}`;
    case 'checkListItem':
      return `[${props.checked ? 'x' : ' '}] ${text}`;
    case 'quote':
      return `> ${text}`;
    case 'codeBlock':
      // Code keeps its spaces and lines.
      return `code ${props.language ?? ''}: ${inline(block.content, refs)}`;
    case 'table': {
      const rows: Json[] = block.content?.rows ?? [];
      const cell = (c: Json) => squeeze(inline(Array.isArray(c) ? c : c?.content, refs));
      return `table ${rows.map((row) => `| ${(row.cells ?? []).map(cell).join(' | ')} |`).join(' ')}`;
    }
    case 'image':
      return `${refs.image(String(props.url ?? ''))}${props.caption ? ` "${props.caption}"` : ''}`;
    default:
      return `${block.type}: ${text}`;
  }
}
