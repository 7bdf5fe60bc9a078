/** Walks over BlockNote blocks (JSON) that the import rewrites after parsing. */

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Text of inline content (styled text and links). */
export function inlineText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((item) => (isObject(item) ? (typeof item.text === 'string' ? item.text : inlineText(item.content)) : ''))
    .join('');
}

/**
 * Blocks without BlockNote's random ids: the same file always plans the same content, and the
 * collaboration server derives ids for id-less blocks the same way on every replica.
 */
export function withoutIds(blocks: Json[]): Json[] {
  return blocks.map(({ id: _id, ...block }) => ({
    ...block,
    ...(Array.isArray(block.children) ? { children: withoutIds(block.children as Json[]) } : {}),
  }));
}

const isEmptyParagraph = (block: Json) =>
  block.type === 'paragraph' &&
  inlineText(block.content).trim() === '' &&
  (!Array.isArray(block.children) || block.children.length === 0);

/**
 * The document's title from its first block when that is a level-1 heading, and the blocks
 * without it. A heading further down is content, not a title. With `only`, the heading is taken
 * only if its text is that title (a front-matter title repeated as the first heading).
 */
export function takeTitleHeading(blocks: Json[], only?: string): { title: string | null; blocks: Json[] } {
  const first = blocks.findIndex((block) => !isEmptyParagraph(block));
  const head = blocks[first];
  if (head?.type !== 'heading' || !isObject(head.props) || Number(head.props.level) !== 1) {
    return { title: null, blocks };
  }
  const title = inlineText(head.content).trim();
  if (title === '' || (only !== undefined && title !== only.trim())) return { title: null, blocks };
  const children = Array.isArray(head.children) ? (head.children as Json[]) : [];
  return { title, blocks: [...children, ...blocks.slice(first + 1)] };
}

export interface RefRewriter {
  /** The new target of a link, or null to keep its text without a link. */
  link(href: string): string | null;
  /** The new block of an image (its URL resolved), or null to keep its name as a paragraph. */
  image(url: string, block: Json): Promise<Json | null>;
}

function rewriteInline(content: unknown, rewrite: RefRewriter): unknown {
  if (!Array.isArray(content)) return content;
  const out: unknown[] = [];
  for (const item of content) {
    if (isObject(item) && item.type === 'link' && typeof item.href === 'string') {
      const href = rewrite.link(item.href);
      if (href === null) out.push(...(Array.isArray(item.content) ? item.content : []));
      else out.push({ ...item, href });
    } else out.push(item);
  }
  return out;
}

function rewriteContent(content: unknown, rewrite: RefRewriter): unknown {
  if (isObject(content) && content.type === 'tableContent' && Array.isArray(content.rows)) {
    return {
      ...content,
      rows: content.rows.map((row) =>
        isObject(row) && Array.isArray(row.cells)
          ? {
              ...row,
              cells: row.cells.map((cell) =>
                isObject(cell)
                  ? { ...cell, content: rewriteInline(cell.content, rewrite) }
                  : rewriteInline(cell, rewrite),
              ),
            }
          : row,
      ),
    };
  }
  return rewriteInline(content, rewrite);
}

/** Every link and image of the blocks through `rewrite`, children included. */
export async function rewriteRefs(blocks: Json[], rewrite: RefRewriter): Promise<Json[]> {
  const out: Json[] = [];
  for (const block of blocks) {
    const children = Array.isArray(block.children) ? await rewriteRefs(block.children as Json[], rewrite) : undefined;
    let next: Json = { ...block, ...(children ? { children } : {}) };
    if ('content' in block) next.content = rewriteContent(block.content, rewrite);
    if (block.type === 'image' && isObject(block.props) && typeof block.props.url === 'string') {
      const image = await rewrite.image(block.props.url, next);
      if (image) next = image;
      else {
        const text = String(block.props.caption || block.props.name || '').trim();
        if (text === '' && !children?.length) continue;
        next = {
          type: 'paragraph',
          content: text ? [{ type: 'text', text, styles: {} }] : [],
          children: children ?? [],
        };
      }
    }
    out.push(next);
  }
  return out;
}
