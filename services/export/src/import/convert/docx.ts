import mammoth from 'mammoth';
import type { Json } from '../blocks.js';
import { bodyOf, elementToBlocks } from './html.js';

/**
 * Word's "Title" paragraph (our Word export starts with one) read as a first-level heading, which
 * the plan then takes as the document's title: otherwise the title came from the file name, where
 * characters no file name may hold ("a/b") had been replaced.
 */
const STYLE_MAP = ["p[style-name='Title'] => h1:fresh"];

/**
 * A Word file as blocks: mammoth turns its styles into HTML (Title, Heading 1–6, lists, tables,
 * bold, italic, strike, links), which the HTML converter reads. Images come as `data:` URLs, which
 * the plan turns into attachments like any other image.
 */
export async function docxToBlocks(bytes: Buffer): Promise<{ blocks: Json[]; messages: string[] }> {
  const result = await mammoth.convertToHtml({ buffer: bytes }, { styleMap: STYLE_MAP });
  return {
    blocks: await elementToBlocks(bodyOf(`<body>${result.value}</body>`)),
    messages: result.messages.filter((m) => m.type === 'error').map((m) => m.message),
  };
}
