import { type Env, readEnv, wholeNumber } from '@wiki/config';

/** What the MCP service reads besides the shared configuration (libs/config). */
export interface McpSettings {
  /**
   * Open SSE sessions per MCP key across every replica (MCP_SESSIONS_PER_KEY, default 10;
   * ARCHITECTURE 5.14): a new one closes the oldest.
   */
  sessionsPerKey: number;
}

export const DEFAULT_MCP_SETTINGS: McpSettings = { sessionsPerKey: 10 };

/** A bad value names its variable (ConfigError). */
export function loadMcpSettings(env: Env): McpSettings {
  const read = readEnv(env, {
    MCP_SESSIONS_PER_KEY: wholeNumber(DEFAULT_MCP_SETTINGS.sessionsPerKey, { min: 1, max: 10_000 }),
  });
  return { sessionsPerKey: read.MCP_SESSIONS_PER_KEY };
}
