import { createDatabasePool, sql } from '@wiki/db';

/**
 * Gives the bench user `count` notifications straight in the notification service's database (as
 * its event consumer would write them), half of them read, so that the list and count rows read
 * real pages instead of an empty table.
 */
export async function fillNotifications(databaseUrl: string, userId: string, count: number): Promise<void> {
  const pool = await createDatabasePool(databaseUrl, { maximumPoolSize: 1 });
  try {
    await pool.query(sql.unsafe`
      INSERT INTO notifications (id, user_id, type, status, title, message, actor_name, workspace_name,
        document_id, document_title, created_at, read_at, source_key)
      SELECT gen_random_uuid(), ${userId}, 'COMMENT_MENTION', CASE WHEN i % 2 = 0 THEN 'READ' ELSE 'UNREAD' END,
        'Ada mentioned you', 'Ada mentioned you in a comment on "Page ' || i || '"', 'Ada', 'Bench',
        gen_random_uuid(), 'Page ' || i, now() - make_interval(secs => i),
        CASE WHEN i % 2 = 0 THEN now() END, 'bench:' || i
      FROM generate_series(1, ${count}) AS i`);
  } finally {
    await pool.end();
  }
}
