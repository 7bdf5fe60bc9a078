import type { Config } from '@wiki/config';
import { NewestWinsLimit, type SlotsLogger } from '@wiki/limits';
import { loadMcpSettings } from '../settings.js';

/**
 * What an SSE session gets last when a newer session of the same MCP key pushes it out. The long
 * `retry` keeps an EventSource that reconnects by itself from pushing out the next one at once.
 */
export const TOO_MANY_SESSIONS_NOTICE =
  'retry: 30000\nevent: reconnect\ndata: {"reason":"too many sessions for this MCP key"}\n\n';

/**
 * At most MCP_SESSIONS_PER_KEY open SSE sessions per MCP key across every replica (ARCHITECTURE
 * 5.14): a new one is always served and closes the key's oldest, wherever it is. Why the oldest
 * and not a refusal: docs/DECISIONS.md, "Long-lived connections per user".
 */
export type SessionLimit = NewestWinsLimit;

export const createSessionLimit = (config: Config, logger: SlotsLogger): SessionLimit =>
  new NewestWinsLimit(config, 'mcp-sessions', loadMcpSettings(config.env).sessionsPerKey, logger);
