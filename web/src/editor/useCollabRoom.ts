import { useEffect, useState } from 'react';
import { CollabRoom } from './collab-room';

/** The room of `documentId`, open while the component is mounted (null until it is). */
export function useCollabRoom(documentId: string, token: () => Promise<string>): CollabRoom | null {
  const [room, setRoom] = useState<CollabRoom | null>(null);
  useEffect(() => {
    const opened = new CollabRoom(documentId, token);
    setRoom(opened);
    return () => {
      opened.close();
      setRoom(null);
    };
  }, [documentId, token]);
  return room;
}
