import type * as Y from 'yjs';

/** The XML fragment that holds BlockNote content in a room (ARCHITECTURE 5.15). */
export const FRAGMENT = 'document-store';

export interface BlockEditor {
  blocksToYXmlFragment(blocks: unknown[], fragment: Y.XmlFragment): Y.XmlFragment;
  yDocToBlocks(doc: Y.Doc, fragment: string): unknown[];
}

let loading: Promise<BlockEditor> | undefined;

/**
 * BlockNote's server editor (with React and jsdom behind it, some 50 MB of heap) is loaded when
 * the first room opens, not at start: an idle replica stays small.
 */
export function blockEditor(): Promise<BlockEditor> {
  loading ??= import('@blocknote/server-util')
    .then(({ ServerBlockNoteEditor }) => ServerBlockNoteEditor.create() as unknown as BlockEditor)
    .catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
  return loading;
}
