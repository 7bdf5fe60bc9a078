import type { Json } from '../blocks.js';

interface Parser {
  markdown(text: string): Promise<Json[]>;
  html(html: string): Promise<Json[]>;
}

interface ServerUtil {
  ServerBlockNoteEditor: {
    create(): {
      tryParseMarkdownToBlocks(markdown: string): Promise<unknown[]>;
      tryParseHTMLToBlocks(html: string): Promise<unknown[]>;
    };
  };
}

/**
 * Imported by a name TypeScript does not follow: server-util's declarations declare DOM types
 * partly, which breaks every other file that uses the DOM's (the web tests' locators).
 */
const SERVER_UTIL = '@blocknote/server-util';

let loading: Promise<Parser> | undefined;

/**
 * BlockNote's own Markdown and HTML parsers (`@blocknote/server-util`, the version the web app's
 * editor and the collaboration server run), so imported blocks are exactly what the editor makes
 * of the same text. Loaded on the first import only: it brings jsdom and about 100 MB with it.
 */
export function blockNote(): Promise<Parser> {
  loading ??= (import(SERVER_UTIL) as Promise<ServerUtil>)
    .then(({ ServerBlockNoteEditor }): Parser => {
      const editor = ServerBlockNoteEditor.create();
      return {
        markdown: async (text) => (await editor.tryParseMarkdownToBlocks(text)) as Json[],
        html: async (html) => (await editor.tryParseHTMLToBlocks(html)) as Json[],
      };
    })
    .catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
  return loading;
}
