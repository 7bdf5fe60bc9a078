import { type Env, readEnv, wholeNumber } from '@wiki/config';

/** What the collaboration server reads besides the shared configuration (libs/config). */
export interface CollabSettings {
  /** Quiet time after an edit before a room is stored (COLLAB_DEBOUNCE_MS, default 2000). */
  debounceMs: number;
  /** Longest a room under constant editing goes unsaved (COLLAB_MAX_DEBOUNCE_MS, default 10000). */
  maxDebounceMs: number;
  /**
   * Collab connections (one per document a provider opens) per user across every replica
   * (COLLAB_CONNECTIONS_PER_USER, default 50; ARCHITECTURE 5.14): past it a connection is refused.
   */
  connectionsPerUser: number;
  /** Messages per second one WebSocket may send in the long run (COLLAB_UPDATES_PER_SECOND, default 50). */
  updatesPerSecond: number;
  /** Messages one WebSocket may send at once (COLLAB_UPDATES_BURST, default 500). */
  updatesBurst: number;
  /**
   * How long a replica about to build a room from content waits for a copy from a replica holding
   * it open (COLLAB_PEER_WAIT_MS, default 250; 0 does not ask). When no replica holds the room,
   * NATS says so at once and nobody waits.
   */
  peerWaitMs: number;
}

export const DEFAULT_COLLAB_SETTINGS: CollabSettings = {
  debounceMs: 2000,
  maxDebounceMs: 10_000,
  connectionsPerUser: 50,
  updatesPerSecond: 50,
  updatesBurst: 500,
  peerWaitMs: 250,
};

/** A bad value names its variable (ConfigError). */
export function loadCollabSettings(env: Env): CollabSettings {
  const d = DEFAULT_COLLAB_SETTINGS;
  const read = readEnv(env, {
    COLLAB_DEBOUNCE_MS: wholeNumber(d.debounceMs, { min: 0, max: 60_000 }),
    COLLAB_MAX_DEBOUNCE_MS: wholeNumber(d.maxDebounceMs, { min: 0, max: 600_000 }),
    COLLAB_CONNECTIONS_PER_USER: wholeNumber(d.connectionsPerUser, { min: 1, max: 100_000 }),
    COLLAB_UPDATES_PER_SECOND: wholeNumber(d.updatesPerSecond, { min: 1, max: 1_000_000 }),
    COLLAB_UPDATES_BURST: wholeNumber(d.updatesBurst, { min: 1, max: 1_000_000 }),
    COLLAB_PEER_WAIT_MS: wholeNumber(d.peerWaitMs, { min: 0, max: 5_000 }),
  });
  return {
    debounceMs: read.COLLAB_DEBOUNCE_MS,
    maxDebounceMs: read.COLLAB_MAX_DEBOUNCE_MS,
    connectionsPerUser: read.COLLAB_CONNECTIONS_PER_USER,
    updatesPerSecond: read.COLLAB_UPDATES_PER_SECOND,
    updatesBurst: read.COLLAB_UPDATES_BURST,
    peerWaitMs: read.COLLAB_PEER_WAIT_MS,
  };
}
