import { withCollaboration } from '@blocknote/core/yjs';
import { BlockNoteView } from '@blocknote/mantine';
import { useCreateBlockNote } from '@blocknote/react';
import { useComputedColorScheme } from '@mantine/core';
import { useRef } from 'react';
import { type CollabRoom, FRAGMENT } from './collab-room';
import { renderCursor } from './cursor';
import { colorFor } from './person-color';
import { useTextboxAria } from './useTextboxAria';

interface Props {
  room: CollabRoom;
  /** BlockNote's file hooks (files.ts): uploads to the document, files fetched with the token. */
  files: {
    uploadFile: (file: File) => Promise<Record<string, unknown>>;
    resolveFileUrl: (url: string) => Promise<string>;
  };
  editable: boolean;
  user: { id: string; name: string };
}

/** BlockNote joined to the room's Y.Doc; others' carets come through the provider's awareness. */
export function EditorSurface({ room, editable, user, files }: Props) {
  const scheme = useComputedColorScheme('light');
  const editor = useCreateBlockNote(
    withCollaboration({
      collaboration: {
        // BlockNote reads only the awareness of the provider (carets and names).
        provider: { awareness: room.provider.awareness ?? undefined },
        fragment: room.doc.getXmlFragment(FRAGMENT),
        user: { name: user.name, color: colorFor(user.id) },
        renderCursor,
      },
      uploadFile: files.uploadFile,
      resolveFileUrl: files.resolveFileUrl,
      domAttributes: {
        editor: {
          role: 'textbox',
          'aria-multiline': 'true',
          'aria-label': 'Document content',
          'aria-readonly': String(!editable),
        },
      },
    }),
    [room, user.id, user.name],
  );
  const container = useRef<HTMLDivElement>(null);
  useTextboxAria(container);
  return (
    <div ref={container} className="editor-surface">
      <BlockNoteView editor={editor} editable={editable} theme={scheme} className="document-editor" />
    </div>
  );
}
