import '@blocknote/core/fonts/inter.css';
import '@blocknote/mantine/style.css';
import type { PartialBlock } from '@blocknote/core';
import { BlockNoteView } from '@blocknote/mantine';
import { useCreateBlockNote } from '@blocknote/react';
import { useComputedColorScheme } from '@mantine/core';
import { useApi } from '../auth/AuthContext';
import { useFileUrls } from './files';

/**
 * Stored block content shown read-only (the public page). BlockNote renders it through
 * ProseMirror's schema: text stays text, and nothing in the content becomes active HTML.
 * Its files are fetched without a token: the attachment service serves a published document's
 * files to anyone (and nobody else's).
 */
export default function ReadOnlyContent({ blocks }: { blocks: PartialBlock[] }) {
  const scheme = useComputedColorScheme('light');
  const resolveFileUrl = useFileUrls(useApi(), true);
  const editor = useCreateBlockNote(
    {
      initialContent: blocks.length > 0 ? blocks : undefined,
      resolveFileUrl,
      // BlockNote's suggestion menus put aria-autocomplete/aria-haspopup on the editor element,
      // which only a textbox (read-only here) may carry.
      domAttributes: {
        editor: {
          role: 'textbox',
          'aria-label': 'Document content',
          'aria-multiline': 'true',
          'aria-readonly': 'true',
        },
      },
    },
    [blocks, resolveFileUrl],
  );
  return (
    <BlockNoteView
      editor={editor}
      editable={false}
      theme={scheme}
      className="document-editor"
      sideMenu={false}
      formattingToolbar={false}
      slashMenu={false}
      linkToolbar={false}
      filePanel={false}
      tableHandles={false}
      emojiPicker={false}
    />
  );
}
