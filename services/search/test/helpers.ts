import { type ApiResponse, expectStatus, type SignedInUser, type Stack } from '@wiki/testing';
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

/** Starts a comment thread on `documentId` (anchored anywhere: search reads only its text). */
export async function startThread(
  stack: Stack,
  user: SignedInUser,
  documentId: string,
  content: string,
): Promise<{ threadId: string; commentId: string }> {
  const res = expectStatus(
    await stack.request('POST', `/api/v1/comments/documents/${documentId}/threads`, {
      token: user.token,
      body: { anchor: { blockId: 'b1', startOffset: 0, endOffset: 4, selectedText: 'text' }, comment: { content } },
    }),
    201,
    'thread',
  );
  return { threadId: res.body.data.id, commentId: res.body.data.comments[0].id };
}

/** Uploads a file to `documentId` through the gateway; answers the attachment's id. */
export async function uploadFile(
  stack: Stack,
  user: SignedInUser,
  where: { workspaceId: string; documentId: string },
  file: { name: string; body: Buffer },
): Promise<string> {
  const form = new FormData();
  form.append('workspaceId', where.workspaceId);
  form.append('documentId', where.documentId);
  form.append('file', new Blob([new Uint8Array(file.body)]), file.name);
  const res = await fetch(`${stack.gatewayUrl}/api/v1/attachments/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.token}` },
    body: form,
  });
  const answer = (await res.json()) as { data?: { id: string } };
  if (res.status !== 201 || !answer.data) throw new Error(`upload: ${res.status} ${JSON.stringify(answer)}`);
  return answer.data.id;
}
