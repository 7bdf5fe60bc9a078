import type * as Y from 'yjs';

/** The XML fragment that holds BlockNote content in a room (ARCHITECTURE 5.15). */
export const FRAGMENT = 'document-store';

export interface BlockEditor {
  blocksToYXmlFragment(blocks: unknown[], fragment: Y.XmlFragment): Y.XmlFragment;
  yDocToBlocks(doc: Y.Doc, fragment: string): unknown[];
}

let loading: Promise<BlockEditor> | undefined;

/**
 * BlockNote's headless editor from `@blocknote/core`, the very editor `@blocknote/server-util`
 * wraps, without the React and jsdom that only its HTML and Markdown conversions need: about
 * 25 MB of RSS and 0.2 s to load instead of 125 MB and 0.9 s. Core is server-util's own
 * dependency at its exact version (listing it ourselves fails on its optional `@y/y` peer).
 */
export function blockEditor(): Promise<BlockEditor> {
  loading ??= Promise.all([import('@blocknote/core'), import('@blocknote/core/yjs')])
    .then(([{ BlockNoteEditor }, yjs]): BlockEditor => {
      const editor = BlockNoteEditor.create();
      return {
        blocksToYXmlFragment: (blocks, fragment) => yjs.blocksToYXmlFragment(editor, blocks as never, fragment),
        yDocToBlocks: (doc, fragment) => yjs.yDocToBlocks(editor, doc, fragment),
      };
    })
    .catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
  return loading;
}
