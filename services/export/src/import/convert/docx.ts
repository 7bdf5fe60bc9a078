import mammoth from 'mammoth';
import type { Json } from '../blocks.js';
import { bodyOf, elementToBlocks } from './html.js';

/**
 * A Word file as blocks: mammoth turns its styles into HTML (Heading 1–6, lists, tables, bold,
 * italic, strike, links), which the HTML converter reads. Images come as `data:` URLs, which the
 * plan turns into attachments like any other image.
 */
export async function docxToBlocks(bytes: Buffer): Promise<{ blocks: Json[]; messages: string[] }> {
  const result = await mammoth.convertToHtml({ buffer: bytes });
  return {
    blocks: await elementToBlocks(bodyOf(`<body>${result.value}</body>`)),
    messages: result.messages.filter((m) => m.type === 'error').map((m) => m.message),
  };
}
