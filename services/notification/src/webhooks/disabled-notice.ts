import type { DatabasePool } from '@wiki/db';
import { sql, z } from '@wiki/db';
import { workspaceName } from '../db/names.js';
import { insertNotification } from '../db/notifications.js';
import { wantsNotifications } from '../db/preferences.js';
import { wording } from '../domain/notification.js';

/**
 * Tells every ADMIN and OWNER of the workspace (the membership projection) that its webhook was
 * disabled: a WEBHOOK_DISABLED notification each, stored like every other one so that it reaches
 * their streams (`notify`, after the commit). Once per webhook and failure period (the source key).
 */
export async function noticeWebhookDisabled(
  pool: DatabasePool,
  webhook: { id: string; workspaceId: string },
  notify: (userIds: Iterable<string>) => void,
): Promise<void> {
  const told = await pool.transaction(async (tx) => {
    const admins = await tx.anyFirst(sql.type(z.object({ userId: z.string() }))`
      SELECT user_id AS "userId" FROM membership_projection
      WHERE workspace_id = ${webhook.workspaceId} AND role IN ('OWNER', 'ADMIN') ORDER BY user_id`);
    const name = await workspaceName(tx, webhook.workspaceId);
    const text = wording('WEBHOOK_DISABLED', { actorName: '', workspaceName: name ?? '', documentTitle: '' });
    const made: string[] = [];
    for (const userId of admins) {
      if (!(await wantsNotifications(tx, userId))) continue;
      const stored = await insertNotification(
        tx,
        {
          userId,
          type: 'WEBHOOK_DISABLED',
          ...text,
          actorId: null,
          workspaceId: webhook.workspaceId,
          // Not the URL: it may carry the receiver's own token.
          metadata: { webhookId: webhook.id },
          sourceKey: `WEBHOOK_DISABLED:${webhook.id}:${Date.now()}`,
        },
        { actorName: null, actorAvatar: null, workspaceName: name, documentTitle: null },
      );
      if (stored) made.push(userId);
    }
    return made;
  });
  if (told.length > 0) notify(told);
}
