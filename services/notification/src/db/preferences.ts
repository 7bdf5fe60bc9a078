import { type CommonQueryMethods, sql, z } from '@wiki/db';

export async function savePreference(db: CommonQueryMethods, userId: string, enabled: boolean, at: string) {
  await db.query(sql.unsafe`
    INSERT INTO notification_preferences AS p (user_id, enabled, event_at) VALUES (${userId}, ${enabled}, ${at})
    ON CONFLICT (user_id) DO UPDATE SET enabled = EXCLUDED.enabled, event_at = EXCLUDED.event_at
      WHERE p.event_at <= EXCLUDED.event_at`);
}

/** False only when the user turned notifications off. */
export async function wantsNotifications(db: CommonQueryMethods, userId: string): Promise<boolean> {
  const enabled = await db.maybeOneFirst(sql.type(z.object({ enabled: z.boolean() }))`
    SELECT enabled FROM notification_preferences WHERE user_id = ${userId}`);
  return enabled ?? true;
}
