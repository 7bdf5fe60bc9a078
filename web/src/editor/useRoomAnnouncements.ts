import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { commentKeys, documentKeys } from '../api/queries';
import type { CollabRoom } from './collab-room';

/**
 * Reads again what the page shows beside the editor when the collaboration server says it changed
 * (others' comments, renames, icons, covers, moves, archiving, publishing): pushed, not polled.
 */
export function useRoomAnnouncements(room: CollabRoom | null, documentId: string): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!room) return;
    return room.onAnnouncement((what) => {
      const keys =
        what === 'comments'
          ? [commentKeys.threads(documentId)]
          : [documentKeys.detail(documentId), documentKeys.permission(documentId), documentKeys.ancestors(documentId)];
      for (const queryKey of keys) void queryClient.invalidateQueries({ queryKey });
    });
  }, [room, documentId, queryClient]);
}
