import { startService as startGateway } from '@wiki/gateway';
import { type ApiResponse, type SignedInUser, type Stack, type StartPart, startStack } from '@wiki/testing';
import { startService as startDocument } from '../../document/src/service.js';
import { startService as startWorkspace } from '../../workspace/src/service.js';
import { startService as startSearch } from '../src/service.js';

/** The whole path: gateway → search, fed by the real document and workspace services' events. */
export function startSearchStack(env: Record<string, string> = {}): Promise<Stack> {
  return startStack({
    gateway: startGateway,
    services: {
      workspace: startWorkspace as StartPart,
      document: startDocument as StartPart,
      search: startSearch as StartPart,
    },
    env,
  });
}

export interface SearchResult {
  id: string;
  title: string;
  icon: string | null;
  parentId: string | null;
  snippet: string;
  matchField: 'title' | 'content';
}

/** GET /api/v1/documents/search through the gateway, as `user`. */
export function searchAs(
  stack: Stack,
  user: SignedInUser,
  workspaceId: string,
  query: string,
  extra = '',
): Promise<ApiResponse<{ success: boolean; data: SearchResult[]; error?: { code: string; message: string } }>> {
  const q = `workspaceId=${encodeURIComponent(workspaceId)}&query=${encodeURIComponent(query)}${extra}`;
  return stack.request('GET', `/api/v1/documents/search?${q}`, { token: user.token });
}
