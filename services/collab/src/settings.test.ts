import { ConfigError } from '@wiki/config';
import { describe, expect, it } from 'vitest';
import { DEFAULT_COLLAB_SETTINGS, loadCollabSettings } from './settings.js';

describe('collaboration settings', () => {
  it('default to a 2 s debounce (10 s at most), 50 connections a user at 50 messages/s, burst 500, 250 ms for a peer', () => {
    expect(loadCollabSettings({})).toEqual(DEFAULT_COLLAB_SETTINGS);
    expect(DEFAULT_COLLAB_SETTINGS).toEqual({
      debounceMs: 2000,
      maxDebounceMs: 10_000,
      connectionsPerUser: 50,
      updatesPerSecond: 50,
      updatesBurst: 500,
      peerWaitMs: 250,
    });
  });

  it('read every variable', () => {
    expect(
      loadCollabSettings({
        COLLAB_DEBOUNCE_MS: '50',
        COLLAB_MAX_DEBOUNCE_MS: '500',
        COLLAB_CONNECTIONS_PER_USER: '4',
        COLLAB_UPDATES_PER_SECOND: '5',
        COLLAB_UPDATES_BURST: '6',
        COLLAB_PEER_WAIT_MS: '0',
      }),
    ).toEqual({
      debounceMs: 50,
      maxDebounceMs: 500,
      connectionsPerUser: 4,
      updatesPerSecond: 5,
      updatesBurst: 6,
      peerWaitMs: 0,
    });
  });

  it.each([
    ['COLLAB_DEBOUNCE_MS', '60001'],
    ['COLLAB_MAX_DEBOUNCE_MS', 'soon'],
    ['COLLAB_CONNECTIONS_PER_USER', '0'],
    ['COLLAB_UPDATES_PER_SECOND', '0'],
    ['COLLAB_UPDATES_BURST', 'many'],
    ['COLLAB_PEER_WAIT_MS', '5001'],
  ])('names the variable of a bad value: %s=%s', (name, value) => {
    expect(() => loadCollabSettings({ [name]: value })).toThrow(ConfigError);
    expect(() => loadCollabSettings({ [name]: value })).toThrow(name);
  });
});
