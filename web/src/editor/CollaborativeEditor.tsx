import { useMemo } from 'react';
import '@blocknote/core/fonts/inter.css';
import '@blocknote/mantine/style.css';
import { useApi } from '../auth/AuthContext';
import { ConnectionStatus } from './ConnectionStatus';
import { EditorSurface } from './EditorSurface';
import { useFileUploads, useFileUrls } from './files';
import { PresenceList } from './PresenceList';
import { UploadStatus } from './UploadStatus';
import { useCollabRoom } from './useCollabRoom';
import { useRoomAnnouncements } from './useRoomAnnouncements';

export interface CollaborativeEditorProps {
  documentId: string;
  /** Where files uploaded into the document belong. */
  workspaceId: string;
  /** False for VIEWER and COMMENTER, and while the document is archived (the server drops their edits anyway). */
  editable: boolean;
  /** Shown to the others (the server puts the signed-in name in any case); colour from the id. */
  user: { id: string; name: string };
  /** The current access token, asked again on every (re)connection. */
  token: () => Promise<string>;
}

/** The editor chunk (loaded lazily): the document's live room, who is here, and BlockNote on it. */
export default function CollaborativeEditor({
  documentId,
  workspaceId,
  editable,
  user,
  token,
}: CollaborativeEditorProps) {
  const room = useCollabRoom(documentId, token);
  useRoomAnnouncements(room, documentId);
  const { uploadFile, uploads, dismiss } = useFileUploads({ workspaceId, documentId });
  const resolveFileUrl = useFileUrls(useApi());
  const files = useMemo(() => ({ uploadFile, resolveFileUrl }), [uploadFile, resolveFileUrl]);
  if (!room) return <p className="loading">Connecting…</p>;
  return (
    <div className="collab-editor">
      <div className="collab-bar">
        <ConnectionStatus room={room} />
        <PresenceList room={room} />
      </div>
      <UploadStatus uploads={uploads} onDismiss={dismiss} />
      <EditorSurface room={room} editable={editable} user={user} files={files} />
    </div>
  );
}
