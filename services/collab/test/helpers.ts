import type { Stack } from '@wiki/testing';
import { startPlatform } from '../../../test/platform.js';

// The Hocuspocus client helpers these tests use (connectEditor, typeParagraph, …) live in
// @wiki/testing, shared with the MCP tests and the end-to-end behaviours.

/** Gateway → workspace, document, search and collab (saves after 50 ms of quiet, at most 300 ms apart). */
export function startCollabStack(env: Record<string, string> = {}): Promise<Stack> {
  return startPlatform(['workspace', 'document', 'search', 'collab'], {
    env: { COLLAB_DEBOUNCE_MS: '50', COLLAB_MAX_DEBOUNCE_MS: '300', ...env },
  });
}
