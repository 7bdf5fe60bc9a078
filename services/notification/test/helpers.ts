import { type ApiResponse, eventually, type SignedInUser, type Stack } from '@wiki/testing';
import { startPlatform } from '../../../test/platform.js';

/** Gateway → notification, fed by the real workspace, document and comment services' events. */
export function startNotificationStack(env: Record<string, string> = {}): Promise<Stack> {
  return startPlatform(['workspace', 'document', 'comment', 'notification'], { env });
}

export interface Notification {
  id: string;
  type: string;
  status: string;
  title: string;
  message: string;
  actionable: boolean;
  actor: { id: string; name: string; avatar: string | null } | null;
  workspace: { id: string; name: string } | null;
  document: { id: string; title: string } | null;
  references: { invitationId: string | null; commentThreadId: string | null };
  metadata: Record<string, unknown>;
  createdAt: string;
  readAt: string | null;
  expiresAt: string | null;
}

export interface Page<T> {
  content: T[];
  totalElements: number;
  totalPages: number;
  number: number;
  size: number;
}

export function listAs(stack: Stack, user: SignedInUser, path = '') {
  return stack.request('GET', `/api/v1/notifications${path}`, { token: user.token }) as Promise<
    ApiResponse<{ success: boolean; data: Page<Notification>; error?: { code: string } }>
  >;
}

/** Every notification of the user (one page of 100), failing on anything but a 200. */
export async function allOf(stack: Stack, user: SignedInUser): Promise<Notification[]> {
  const res = await listAs(stack, user, '?size=100');
  if (res.status !== 200) throw new Error(`list as ${user.email}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.content;
}

/** Waits until the user has a notification of `type` matching `where`, and answers it. */
export function awaitNotification(
  stack: Stack,
  user: SignedInUser,
  type: string,
  where: (n: Notification) => boolean = () => true,
): Promise<Notification> {
  return eventually(async () => {
    const found = (await allOf(stack, user)).filter((n) => n.type === type && where(n));
    if (found.length === 0) throw new Error(`no ${type} for ${user.email} yet`);
    return found[0];
  });
}

export const mention = (user: SignedInUser) => `@[${user.name}](${user.id})`;

export async function createThread(stack: Stack, as: SignedInUser, documentId: string, content: string) {
  const res = await stack.request('POST', `/api/v1/comments/documents/${documentId}/threads`, {
    token: as.token,
    body: { anchor: { blockId: 'block-1', startOffset: 0, endOffset: 5, selectedText: 'Hello' }, comment: { content } },
  });
  if (res.status !== 201) throw new Error(`create thread: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string };
}

export async function replyTo(stack: Stack, as: SignedInUser, threadId: string, content: string) {
  const res = await stack.request('POST', `/api/v1/comments/threads/${threadId}/comments`, {
    token: as.token,
    body: { content },
  });
  if (res.status !== 201) throw new Error(`reply: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string };
}
