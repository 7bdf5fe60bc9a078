import { mentionedUserIds } from '../domain/mentions.js';
import type { CommentContext } from './context.js';

/**
 * The users a comment mentions who are members of the workspace, never its author. A member
 * look-up that fails drops that mention (logged) rather than failing the comment. `requestId`
 * (the request being served) goes with look-ups at the workspace service.
 */
export async function mentionedMembers(
  ctx: CommentContext,
  workspaceId: string,
  content: string,
  authorId: string,
  requestId?: string,
): Promise<string[]> {
  const ids = mentionedUserIds(content, authorId);
  const roles = await Promise.all(
    ids.map((id) =>
      ctx.access.roleOf(workspaceId, id, requestId).catch((error: unknown) => {
        ctx.logger.warn(
          { workspaceId, userId: id, err: error },
          'membership look-up for a mention failed; mention dropped',
        );
        return null;
      }),
    ),
  );
  return ids.filter((_, i) => roles[i] !== null);
}
