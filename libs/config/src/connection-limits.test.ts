import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './index.js';

const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'cfg-')), ...env });

describe('connection limits (ARCHITECTURE 5.14)', () => {
  it('default to 10 streams, 50 collab connections at 50 messages/s (burst 500), 10 MCP sessions', () => {
    expect(load({}).connectionLimits).toEqual({
      notificationStreamsPerUser: 10,
      collabConnectionsPerUser: 50,
      collabUpdatesPerSecond: 50,
      collabUpdatesBurst: 500,
      mcpSessionsPerKey: 10,
    });
  });

  it('are read from the environment and must be whole numbers of at least 1', () => {
    const config = load({
      NOTIFICATION_STREAMS_PER_USER: '3',
      COLLAB_CONNECTIONS_PER_USER: '4',
      COLLAB_UPDATES_PER_SECOND: '5',
      COLLAB_UPDATES_BURST: '6',
      MCP_SESSIONS_PER_KEY: '7',
    });
    expect(config.connectionLimits).toEqual({
      notificationStreamsPerUser: 3,
      collabConnectionsPerUser: 4,
      collabUpdatesPerSecond: 5,
      collabUpdatesBurst: 6,
      mcpSessionsPerKey: 7,
    });
    for (const name of [
      'NOTIFICATION_STREAMS_PER_USER',
      'COLLAB_CONNECTIONS_PER_USER',
      'COLLAB_UPDATES_PER_SECOND',
      'COLLAB_UPDATES_BURST',
      'MCP_SESSIONS_PER_KEY',
    ]) {
      expect(() => load({ [name]: '0' })).toThrow(name);
      expect(() => load({ [name]: 'many' })).toThrow(name);
    }
  });
});
