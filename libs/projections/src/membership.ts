import { fileURLToPath } from 'node:url';
import { atLeast, isRole, type Role } from '@wiki/auth';
import { LocalCache } from '@wiki/cache';
import { type DatabasePool, type DatabaseTransactionConnection, type MigrationSet, sql, z } from '@wiki/db';
import { type EventBus, type EventEnvelope, startConsumer, type TypedEvent } from '@wiki/events';
import { forbidden, notFound } from '@wiki/http';
import type { ServiceClient } from '@wiki/service-client';

/** Run before the service's own migrations by every service that checks roles. */
export const membershipMigrations: MigrationSet = {
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
  table: 'pgmigrations_membership',
};

export interface MembershipLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export interface MembershipAccess {
  /**
   * The user's role in the workspace, or null when they are not a member. `requestId` (the request
   * being served) goes with the look-up at the workspace service when the projection has no row.
   */
  roleOf(workspaceId: string, userId: string, requestId?: string): Promise<Role | null>;
  /** The user's role when it is at least `minimum`; 404 for a non-member, 403 for a lower role. */
  requireRole(workspaceId: string, userId: string, minimum: Role, what?: string, requestId?: string): Promise<Role>;
  /** Keeps the projection current from `member.*` and `workspace.*` events. */
  startProjection(bus: EventBus): Promise<{ stop(): Promise<void> }>;
}

export interface MembershipOptions {
  pool: DatabasePool;
  /** The service's client for its peers: asks the workspace service what the projection does not know. */
  client: ServiceClient;
  /** The calling service: names its consumers `<service>-membership` and `<service>-membership-purge`. */
  service: string;
  logger: MembershipLogger;
  /**
   * How long an answer may be reused from memory. Short, because removing a member must revoke
   * access on every service within a second (ARCHITECTURE 5.13).
   */
  cacheMs?: number;
}

const access = z.object({ known: z.boolean(), role: z.string().nullable(), closed: z.boolean() });
const stored = z.object({ role: z.string().nullable() });
const remote = z.object({
  role: z.string().refine(isRole, 'is not a role'),
  memberId: z.string().nullable().optional(),
  workspaceArchived: z.boolean().optional(),
});

/**
 * A condition true when the workspace in `workspaceIdColumn` is neither archived nor deleted, as
 * far as this service's projection knows: for reads that check no role (public documents), which
 * must close with the workspace too (ARCHITECTURE 5.13).
 */
export function workspaceIsOpen(workspaceIdColumn: string) {
  return sql.fragment`NOT EXISTS (SELECT 1 FROM workspace_access_projection w
    WHERE w.workspace_id = ${sql.identifier(workspaceIdColumn.split('.'))} AND (w.is_archived OR w.is_deleted))`;
}

/** What the projection follows, parsed against the event contracts of @wiki/events. */
type MembershipEvent = TypedEvent<
  | 'member.added'
  | 'member.role_changed'
  | 'member.removed'
  | 'workspace.created'
  | 'workspace.updated'
  | 'workspace.deleted'
>;

export function createMembershipAccess(options: MembershipOptions): MembershipAccess {
  const { pool, client, logger } = options;
  // Answers boxed, so that "not a member" (null) is remembered too.
  const cache = new LocalCache<{ role: Role | null }>({ maxEntries: 50_000, ttlMs: options.cacheMs ?? 500 });

  const forget = (workspaceId: string, userId?: string) => {
    if (userId) cache.delete(`${workspaceId}:${userId}`);
    else cache.deleteWhere((key) => key.startsWith(`${workspaceId}:`));
  };

  /**
   * Asks the workspace service when the projection has no row (e.g. a workspace made a moment ago).
   * What it stores has no event time, so any event overrides it; a row an event wrote meanwhile
   * (a removal that raced with this lookup) is kept and answered instead.
   */
  async function readThrough(workspaceId: string, userId: string, requestId?: string): Promise<Role | null> {
    const path = `/internal/workspaces/${encodeURIComponent(workspaceId)}/members/${encodeURIComponent(userId)}`;
    const data = await client.get('workspace', path, { requestId, parse: (body) => remote.parse(body) });
    if (!data) return null;
    if (data.workspaceArchived) {
      await pool.query(sql.unsafe`
        INSERT INTO workspace_access_projection (workspace_id, is_archived) VALUES (${workspaceId}, true)
        ON CONFLICT (workspace_id) DO NOTHING`);
      return null;
    }
    const kept = await pool.one(sql.type(stored)`
      INSERT INTO membership_projection AS m (workspace_id, user_id, member_id, role)
      VALUES (${workspaceId}, ${userId}, ${data.memberId ?? null}, ${data.role})
      ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = m.role
      RETURNING role`);
    return kept.role as Role | null;
  }

  async function roleOf(workspaceId: string, userId: string, requestId?: string): Promise<Role | null> {
    const key = `${workspaceId}:${userId}`;
    const hit = cache.get(key);
    if (hit) return hit.role;
    // One round trip: the member's row (a row without a role is a removal) and whether the
    // workspace is archived or deleted.
    const found = await pool.one(sql.type(access)`
      SELECT m.user_id IS NOT NULL AS known, m.role, coalesce(w.is_archived OR w.is_deleted, false) AS closed
      FROM (SELECT 1) AS one
      LEFT JOIN membership_projection m ON m.workspace_id = ${workspaceId} AND m.user_id = ${userId}
      LEFT JOIN workspace_access_projection w ON w.workspace_id = ${workspaceId}`);
    const role = found.closed
      ? null
      : found.known
        ? (found.role as Role | null)
        : await readThrough(workspaceId, userId, requestId);
    cache.set(key, { role });
    return role;
  }

  /** Writes a member's row unless the row holds a more recent event; `role` null records a removal. */
  async function setMember(
    tx: DatabaseTransactionConnection,
    event: EventEnvelope,
    workspaceId: string,
    userId: string,
    memberId: string | null,
    role: Role | null,
  ) {
    await tx.query(sql.unsafe`
      INSERT INTO membership_projection AS m (workspace_id, user_id, member_id, role, event_at, updated_at)
      VALUES (${workspaceId}, ${userId}, ${memberId}, ${role}, ${event.occurredAt}, now())
      ON CONFLICT (workspace_id, user_id) DO UPDATE
        SET role = EXCLUDED.role, member_id = EXCLUDED.member_id, event_at = EXCLUDED.event_at, updated_at = now()
        WHERE m.event_at IS NULL OR m.event_at <= EXCLUDED.event_at`);
    forget(workspaceId, userId);
  }

  /** Same rule for the workspace's state; a deletion is final. */
  async function setWorkspace(
    tx: DatabaseTransactionConnection,
    event: EventEnvelope,
    workspaceId: string,
    archived: boolean,
    deleted: boolean,
  ) {
    await tx.query(sql.unsafe`
      INSERT INTO workspace_access_projection AS w (workspace_id, is_archived, is_deleted, event_at)
      VALUES (${workspaceId}, ${archived}, ${deleted}, ${event.occurredAt})
      ON CONFLICT (workspace_id) DO UPDATE
        SET is_archived = EXCLUDED.is_archived, is_deleted = w.is_deleted OR EXCLUDED.is_deleted, event_at = EXCLUDED.event_at
        WHERE w.event_at IS NULL OR w.event_at <= EXCLUDED.event_at OR EXCLUDED.is_deleted`);
    forget(workspaceId);
  }

  async function apply(event: MembershipEvent, tx: DatabaseTransactionConnection): Promise<void> {
    switch (event.type) {
      case 'member.added':
      case 'member.role_changed': {
        const { workspaceId, userId, memberId, role } = event.data;
        await setMember(tx, event, workspaceId, userId, memberId, role);
        break;
      }
      case 'member.removed':
        await setMember(tx, event, event.data.workspaceId, event.data.userId, null, null);
        break;
      case 'workspace.created':
      case 'workspace.updated':
        await setWorkspace(tx, event, event.data.id, event.data.isArchived, false);
        break;
      case 'workspace.deleted':
        await setWorkspace(tx, event, event.data.id, true, true);
        await tx.query(sql.unsafe`DELETE FROM membership_projection WHERE workspace_id = ${event.data.id}`);
        break;
    }
  }

  return {
    roleOf,
    async requireRole(workspaceId, userId, minimum, what = 'Workspace', requestId) {
      const role = await roleOf(workspaceId, userId, requestId);
      if (!role) throw notFound(what);
      if (!atLeast(role, minimum)) throw forbidden(`This needs the ${minimum} role or higher`);
      return role;
    },
    // Two consumers, each with one subject filter: NATS 2.9 has no multi-filter consumers, and one
    // consumer for member.* and workspace.* would filter on `<prefix>.>` and read every event of the system.
    async startProjection(bus) {
      const common = { bus, pool, handle: apply, logger };
      const members = await startConsumer({ ...common, name: `${options.service}-membership`, types: ['member.*'] });
      // The name predates archived workspaces; it is kept so that running consumers carry on.
      const purge = await startConsumer({
        ...common,
        name: `${options.service}-membership-purge`,
        types: ['workspace.created', 'workspace.updated', 'workspace.deleted'],
      });
      return { stop: async () => void (await Promise.all([members.stop(), purge.stop()])) };
    },
  };
}
