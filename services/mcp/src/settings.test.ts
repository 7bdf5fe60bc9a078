import { ConfigError } from '@wiki/config';
import { describe, expect, it } from 'vitest';
import { loadMcpSettings } from './settings.js';

describe('MCP settings', () => {
  it('default to 10 SSE sessions per key (ARCHITECTURE 5.14)', () => {
    expect(loadMcpSettings({})).toEqual({ sessionsPerKey: 10 });
    expect(loadMcpSettings({ MCP_SESSIONS_PER_KEY: '7' })).toEqual({ sessionsPerKey: 7 });
  });

  it('name the variable of a bad value', () => {
    for (const value of ['0', 'many']) {
      expect(() => loadMcpSettings({ MCP_SESSIONS_PER_KEY: value })).toThrow(ConfigError);
      expect(() => loadMcpSettings({ MCP_SESSIONS_PER_KEY: value })).toThrow('MCP_SESSIONS_PER_KEY');
    }
  });
});
