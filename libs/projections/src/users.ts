import { fileURLToPath } from 'node:url';
import type { Actor } from '@wiki/auth';
import { LocalCache } from '@wiki/cache';
import { type DatabasePool, type DatabaseTransactionConnection, type MigrationSet, sql, z } from '@wiki/db';
import { type EventBus, type Logger, type RunningConsumer, startConsumer, type TypedEvent } from '@wiki/events';
import { fetchWorkspaceUser, type RemoteUser, type ServiceClient } from '@wiki/service-client';

/**
 * The users projection: the workspace service's users as the services that show user names keep
 * them, in their own database, table `projection_users`. Its rules:
 *
 * - `user.upserted` (consumer `<service>-users`, startUsersProjection) writes a row unless the row
 *   holds a more recent event: each row keeps the occurredAt of the event that wrote it (event_at),
 *   so a late retry of an older event cannot undo a rename.
 * - A user the projection does not know is read through from the workspace service
 *   (fetchWorkspaceUser) and stored without an event time; so is the signed-in caller (remember).
 *   Such rows give way to any event and never overwrite a row an event wrote.
 * - Removals: the catalog has no user-removal event today. When one is added it is applied by the
 *   same rule (a row that stays, marked removed, with the event's time), so that a late
 *   user.upserted cannot bring the user back; event_at is what makes that possible.
 */

/** Run before the service's own migrations by every service that shows user names. */
export const usersProjectionMigrations: MigrationSet = {
  dir: fileURLToPath(new URL('../migrations-users', import.meta.url)),
  table: 'pgmigrations_users_projection',
};

/** The projection's table, for a query that joins names in: `LEFT JOIN ${usersProjectionTable} u ON u.id = ...`. */
export const usersProjectionTable = sql.identifier(['projection_users']);

/** A user as the projection holds them. */
export type ProjectedUser = RemoteUser;

const ProjectedUser = z.object({
  id: z.string(),
  idpUid: z.string().nullable(),
  email: z.string().nullable(),
  name: z.string(),
  avatarUrl: z.string().nullable(),
});

const columns = sql.fragment`id, idp_uid AS "idpUid", email, name, avatar_url AS "avatarUrl"`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface UsersProjectionLogger {
  warn(obj: object, msg?: string): void;
}

export interface UsersProjectionOptions {
  pool: DatabasePool;
  /** The service's client for its peers: asks the workspace service about users the projection lacks. */
  client: ServiceClient;
  logger: UsersProjectionLogger;
}

export interface UsersProjection {
  /** A user by local id or, failing that, by identity-provider uid, as the projection holds them (no look-up). */
  find(idOrIdpUid: string): Promise<ProjectedUser | null>;
  /** The users of `ids` the projection holds (no look-up), in no particular order. */
  findMany(ids: readonly string[]): Promise<readonly ProjectedUser[]>;
  /**
   * A user by local id or identity-provider uid: the projection first, then the workspace service
   * (with `requestId`, the request being served). Null for a user neither knows; a 503 when the
   * workspace service cannot be asked.
   */
  resolve(idOrIdpUid: string, requestId?: string): Promise<ProjectedUser | null>;
  /**
   * The users of `ids` by id: the projection, then the workspace service for the missing ones. A
   * user nobody knows, or whose look-up failed (logged), is left out: a read shows a placeholder
   * rather than fail because the workspace service is away.
   */
  resolveMany(ids: Iterable<string>, requestId?: string): Promise<Map<string, ProjectedUser>>;
  /**
   * Records the signed-in caller from their identity when the projection has no row for them (once
   * per process and user), so that what they write can be shown with their name without a look-up.
   * An identity without a name records nothing.
   */
  remember(actor: Actor): Promise<void>;
}

const MAX_REMEMBERED = 50_000;

export function createUsersProjection(options: UsersProjectionOptions): UsersProjection {
  const { pool, client, logger } = options;
  const remembered = new LocalCache<true>({ maxEntries: MAX_REMEMBERED });

  async function find(idOrIdpUid: string): Promise<ProjectedUser | null> {
    if (UUID.test(idOrIdpUid)) {
      const byId = await pool.maybeOne(
        sql.type(ProjectedUser)`SELECT ${columns} FROM projection_users WHERE id = ${idOrIdpUid}`,
      );
      if (byId) return byId;
    }
    return pool.maybeOne(sql.type(ProjectedUser)`
      SELECT ${columns} FROM projection_users WHERE idp_uid = ${idOrIdpUid} ORDER BY updated_at DESC LIMIT 1`);
  }

  async function findMany(ids: readonly string[]): Promise<readonly ProjectedUser[]> {
    if (ids.length === 0) return [];
    return pool.any(sql.type(ProjectedUser)`
      SELECT ${columns} FROM projection_users WHERE id = ANY(${sql.array(ids, 'uuid')})`);
  }

  /**
   * Asks the workspace service and stores its answer without an event time. It replaces a row no
   * event wrote (one remembered from an identity), never one an event wrote: that row is kept and
   * answered instead (an event that raced with the look-up).
   */
  async function readThrough(idOrIdpUid: string, requestId?: string): Promise<ProjectedUser | null> {
    const remote = await fetchWorkspaceUser(client, idOrIdpUid, requestId);
    if (!remote) return null;
    const kept = await pool.maybeOne(sql.type(ProjectedUser)`
      WITH written AS (
        INSERT INTO projection_users AS u (id, idp_uid, email, name, avatar_url)
        VALUES (${remote.id}, ${remote.idpUid}, ${remote.email}, ${remote.name}, ${remote.avatarUrl})
        ON CONFLICT (id) DO UPDATE
          SET idp_uid = coalesce(EXCLUDED.idp_uid, u.idp_uid), email = coalesce(EXCLUDED.email, u.email),
            name = EXCLUDED.name, avatar_url = EXCLUDED.avatar_url, updated_at = now()
          WHERE u.event_at IS NULL
        RETURNING ${columns}
      )
      SELECT * FROM written
      UNION ALL
      SELECT ${columns} FROM projection_users WHERE id = ${remote.id} AND NOT EXISTS (SELECT 1 FROM written)`);
    return kept ?? remote;
  }

  return {
    find,
    findMany,
    async resolve(idOrIdpUid, requestId) {
      return (await find(idOrIdpUid)) ?? readThrough(idOrIdpUid, requestId);
    },
    async resolveMany(ids, requestId) {
      const wanted = [...new Set(ids)];
      const found = new Map((await findMany(wanted)).map((user) => [user.id, user]));
      const missing = wanted.filter((id) => !found.has(id));
      await Promise.all(
        missing.map(async (id) => {
          try {
            const user = await readThrough(id, requestId);
            if (user) found.set(id, user);
          } catch (error) {
            logger.warn({ userId: id, err: error }, 'user look-up failed; showing a placeholder');
          }
        }),
      );
      return found;
    },
    async remember(actor) {
      if (!actor.name || remembered.get(actor.userId)) return;
      await pool.query(sql.unsafe`
        INSERT INTO projection_users (id, idp_uid, email, name, avatar_url)
        VALUES (${actor.userId}, ${actor.idpUid ?? null}, ${actor.email ?? null}, ${actor.name}, ${actor.avatarUrl ?? null})
        ON CONFLICT (id) DO NOTHING`);
      remembered.set(actor.userId, true);
    },
  };
}

/**
 * user.upserted: the row takes the event's user unless it holds a more recent event. One
 * statement, so two consumers applying events of the same user cannot interleave between the check
 * and the write.
 */
async function applyUserUpserted(event: TypedEvent<'user.upserted'>, tx: DatabaseTransactionConnection) {
  const user = event.data;
  await tx.query(sql.unsafe`
    INSERT INTO projection_users AS u (id, idp_uid, email, name, avatar_url, event_at)
    VALUES (${user.id}, ${user.idpUid}, ${user.email}, ${user.name}, ${user.avatarUrl}, ${event.occurredAt})
    ON CONFLICT (id) DO UPDATE
      SET idp_uid = EXCLUDED.idp_uid, email = EXCLUDED.email, name = EXCLUDED.name, avatar_url = EXCLUDED.avatar_url,
        event_at = EXCLUDED.event_at, updated_at = now()
      WHERE u.event_at IS NULL OR u.event_at <= EXCLUDED.event_at`);
}

export interface UsersConsumerOptions {
  bus: EventBus;
  pool: DatabasePool;
  /** The calling service: names the consumer `<service>-users`. */
  service: string;
  logger: Logger;
}

/** Keeps the users projection current from user.upserted (the data parsed by its contract in @wiki/events). */
export function startUsersProjection(options: UsersConsumerOptions): Promise<RunningConsumer> {
  const { bus, pool, service, logger } = options;
  return startConsumer({
    bus,
    pool,
    logger,
    name: `${service}-users`,
    types: ['user.upserted'],
    handle: applyUserUpserted,
  });
}
