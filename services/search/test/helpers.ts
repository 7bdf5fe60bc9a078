import type { ApiResponse, SignedInUser, Stack } from '@wiki/testing';
import { startPlatform } from '../../../test/platform.js';

/** The whole path: gateway → search, fed by the real document and workspace services' events. */
export function startSearchStack(env: Record<string, string> = {}): Promise<Stack> {
  return startPlatform(['workspace', 'document', 'search'], { env });
}

export interface SearchResult {
  id: string;
  title: string;
  icon: string | null;
  parentId: string | null;
  snippet: string;
  matchField: 'title' | 'content' | 'comment' | 'attachment';
  commentThreadId?: string;
  attachmentId?: string;
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
