import { useSyncExternalStore } from 'react';
import type { CollabRoom, ConnectionState } from './collab-room';

const TEXT: Record<Exclude<ConnectionState, 'refused'>, string> = {
  connecting: 'Connecting…',
  connected: 'Connected',
  offline: 'Offline — changes will sync when you reconnect',
  reconnecting: 'Reconnecting…',
};

/** The live connection's state, announced politely as it changes. */
export function ConnectionStatus({ room }: { room: CollabRoom }) {
  const state = useSyncExternalStore(room.subscribe, room.getState);
  return (
    <div className="connection-status" data-state={state}>
      <span role="status">{state === 'refused' ? `Not connected: ${room.refusalReason()}` : TEXT[state]}</span>
      {state === 'refused' && (
        <button type="button" onClick={() => room.retry()}>
          Try again
        </button>
      )}
    </div>
  );
}
