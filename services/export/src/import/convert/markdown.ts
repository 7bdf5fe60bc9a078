import { parse as parseYaml } from 'yaml';
import type { Json } from '../blocks.js';
import { blockNote } from './blocknote.js';
import { holdEscapes, releaseEscapes } from './escapes.js';

/** YAML front matter: `---` on the first line, up to the next line of `---` (or `...`). */
const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

export interface FrontMatter {
  title: string | null;
  body: string;
}

/**
 * The front matter's `title` and the Markdown after it. Front matter that is not YAML, or not a
 * mapping, is left in the text as it was (it was then likely a rule and a setext heading).
 */
export function splitFrontMatter(text: string): FrontMatter {
  const match = FRONT_MATTER.exec(text);
  if (!match) return { title: null, body: text };
  let data: unknown;
  try {
    data = parseYaml(match[1]);
  } catch {
    return { title: null, body: text };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { title: null, body: text };
  const title = (data as Record<string, unknown>).title;
  return {
    title: typeof title === 'string' && title.trim() !== '' ? title.trim() : null,
    body: text.slice(match[0].length),
  };
}

const IMAGE = /!\[[^\]\n]*\]\((?:<[^>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+"[^"\n]*")?\)/g;

/**
 * Images inside a line of text, moved to paragraphs of their own: BlockNote's parser keeps an
 * image only as a block and drops one inside a paragraph. Only plain paragraph lines are split
 * (not list items, quotes, table rows or code, whose structure a blank line would break).
 */
export function liftInlineImages(markdown: string): string {
  let fence: string | null = null;
  return markdown
    .split('\n')
    .map((line) => {
      const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (marker && (fence === null || marker.startsWith(fence))) {
        fence = fence === null ? marker : null;
        return line;
      }
      if (fence !== null || /^\s*([-*+>|]|\d+[.)])\s?/.test(line) || /^( {4}|\t)/.test(line)) return line;
      const images = line.match(IMAGE);
      if (!images || line.replace(IMAGE, '').trim() === '') return line;
      return line
        .split(IMAGE)
        .flatMap((text, i) => [text.trim(), images[i] ?? ''])
        .filter((part) => part !== '')
        .join('\n\n');
    })
    .join('\n');
}

/** GitHub Flavored Markdown as BlockNote blocks, with its front-matter title. */
export async function markdownToBlocks(text: string): Promise<{ title: string | null; blocks: Json[] }> {
  const { title, body } = splitFrontMatter(text.replace(/^\uFEFF/, ''));
  const parser = await blockNote();
  if (body.trim() === '') return { title, blocks: [] };
  return { title, blocks: releaseEscapes(await parser.markdown(liftInlineImages(holdEscapes(body)))) };
}
