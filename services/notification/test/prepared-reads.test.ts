import { randomUUID } from 'node:crypto';
import type { Config } from '@wiki/config';
import { createDatabasePool, type DatabasePool, sql } from '@wiki/db';
import { prepareDatabase } from '@wiki/service';
import { cleanupConfig, isolatedConfig, UNUSED_IDP } from '@wiki/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  countUnread,
  type ListFilter,
  listNotifications,
  NotificationRow,
  type SortDirection,
  type SortField,
} from '../src/db/notifications.js';
import { createPreparedReads, type PreparedReads } from '../src/db/prepared-reads.js';
import type { NotificationStatus, NotificationType } from '../src/domain/notification.js';
import { notificationService } from '../src/service.js';

/**
 * The list and the unread count read through prepared statements whose rows are not parsed by zod:
 * they must answer exactly what the slonik queries answer (the same ISO text for timestamps, the
 * same order, filters, visibility and totals, pages past the end included). Real Postgres.
 */
describe('prepared reads', () => {
  let config: Config;
  let pool: DatabasePool;
  let reads: PreparedReads;
  const user = randomUUID();
  const other = randomUUID();

  beforeAll(async () => {
    config = isolatedConfig(UNUSED_IDP);
    await prepareDatabase(notificationService, config);
    pool = await createDatabasePool(config.databaseUrls.notification);
    reads = createPreparedReads(config.databaseUrls.notification, console);
    // 60 rows of the user: every status and type, expired and not, read and unread, metadata and
    // names or none, and timestamps that tie (to test the id order) or differ below a millisecond.
    await pool.query(sql.unsafe`
      INSERT INTO notifications (id, user_id, type, status, title, message, actionable, actor_id, actor_name,
        actor_avatar, workspace_id, workspace_name, document_id, document_title, invitation_id, comment_thread_id,
        metadata, created_at, read_at, expires_at, source_key)
      SELECT gen_random_uuid(), ${user},
        (ARRAY['COMMENT_MENTION','COMMENT_REPLY','THREAD_RESOLVED','WORKSPACE_INVITATION','INVITATION_ACCEPTED',
          'MEMBER_ROLE_CHANGED','MEMBER_REMOVED'])[1 + i % 7],
        (ARRAY['UNREAD','READ','ACTIONED','DISMISSED','UNREAD'])[1 + i % 5],
        'Title "' || i || '" é', E'Line\\none ' || i, i % 3 = 0,
        CASE WHEN i % 4 <> 0 THEN gen_random_uuid() END, CASE WHEN i % 4 = 1 THEN 'Ada' END,
        CASE WHEN i % 8 = 1 THEN 'https://example.com/a.png' END,
        CASE WHEN i % 2 = 0 THEN gen_random_uuid() END, CASE WHEN i % 6 = 0 THEN 'Bench' END,
        CASE WHEN i % 3 = 1 THEN gen_random_uuid() END, CASE WHEN i % 3 = 1 THEN 'Page ' || i END,
        CASE WHEN i % 7 = 3 THEN gen_random_uuid() END, CASE WHEN i % 5 = 2 THEN gen_random_uuid() END,
        CASE WHEN i % 2 = 0 THEN jsonb_build_object('role', 'EDITOR', 'n', i, 'nested', jsonb_build_object('z', 1, 'a', null))
          ELSE '{}'::jsonb END,
        '2026-03-04 05:06:07.999999+00'::timestamptz - make_interval(secs => (i / 3) * 0.0004),
        CASE WHEN i % 5 IN (1, 2) THEN '2026-03-05 00:00:00.000501+00'::timestamptz + make_interval(mins => i % 4) END,
        CASE WHEN i % 9 = 0 THEN now() - interval '1 hour' WHEN i % 9 = 1 THEN now() + interval '1 day' END,
        'test:' || i
      FROM generate_series(1, 60) AS i`);
    await pool.query(sql.unsafe`
      INSERT INTO notifications (id, user_id, type, title, message, source_key)
      VALUES (gen_random_uuid(), ${other}, 'COMMENT_MENTION', 'Not yours', 'Not yours', 'test:other')`);
  });

  afterAll(async () => {
    await reads?.end();
    await pool?.end();
    if (config) await cleanupConfig(config);
  });

  const sorts: Array<[SortField, SortDirection]> = [
    ['createdAt', 'DESC'],
    ['createdAt', 'ASC'],
    ['readAt', 'DESC'],
    ['readAt', 'ASC'],
  ];
  const filters: Array<{ status?: NotificationStatus; type?: NotificationType }> = [
    {},
    { status: 'UNREAD' },
    { status: 'DISMISSED' },
    { type: 'COMMENT_REPLY' },
    { status: 'READ', type: 'WORKSPACE_INVITATION' },
  ];

  it('lists every sort, filter and page as the slonik query does', async () => {
    let compared = 0;
    for (const [field, direction] of sorts)
      for (const filter of filters)
        for (const [page, size] of [
          [0, 20],
          [1, 7],
          [3, 7],
          [0, 100],
          [50, 20],
        ] as const) {
          const f: ListFilter = { userId: user, ...filter, page, size, sort: { field, direction } };
          const prepared = await reads.listNotifications(f);
          const twin = await listNotifications(pool, f);
          expect(prepared).toEqual({ rows: [...twin.rows], total: twin.total });
          // No key more or less than the zod-checked row.
          for (const row of prepared.rows) expect(Object.keys(row)).toEqual(Object.keys(NotificationRow.shape));
          compared += prepared.rows.length;
        }
    expect(compared).toBeGreaterThan(500);
    const all = await reads.listNotifications({
      userId: user,
      page: 0,
      size: 100,
      sort: { field: 'createdAt', direction: 'DESC' },
    });
    // Dismissed (12) and expired ones are left out; ties on createdAt are in the list.
    expect(all.total).toBe(all.rows.length);
    expect(all.rows.length).toBeGreaterThan(30);
    expect(all.rows.length).toBeLessThan(48);
    expect(all.rows.some((r) => r.createdAt.endsWith('.999Z'))).toBe(true);
    expect(all.rows.some((r) => r.metadata.nested !== undefined)).toBe(true);
  });

  it('answers a page past the end with no rows and the total, and an unknown user with nothing', async () => {
    const past = await reads.listNotifications({
      userId: user,
      page: 1000,
      size: 100,
      sort: { field: 'readAt', direction: 'ASC' },
    });
    expect(past.rows).toEqual([]);
    expect(past.total).toBeGreaterThan(30);
    expect(
      await reads.listNotifications({
        userId: randomUUID(),
        page: 0,
        size: 20,
        sort: { field: 'createdAt', direction: 'DESC' },
      }),
    ).toEqual({ rows: [], total: 0 });
  });

  it('counts unread notifications as the slonik query does', async () => {
    for (const id of [user, other, randomUUID()]) expect(await reads.countUnread(id)).toBe(await countUnread(pool, id));
    expect(await reads.countUnread(user)).toBeGreaterThan(10);
  });
});
