import { fileURLToPath } from 'node:url';
import type { Config } from '@wiki/config';
import { type DatabasePool, type DatabaseTransactionConnection, type MigrationSet, sql, z } from '@wiki/db';
import { type EventBus, type EventEnvelope, startConsumer } from '@wiki/events';
import { forbidden, notFound } from '@wiki/http';
import { serviceTokenSource } from './identity.js';
import { atLeast, isRole, type Role } from './roles.js';

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
  /** The user's role in the workspace, or null when they are not a member. */
  roleOf(workspaceId: string, userId: string): Promise<Role | null>;
  /** The user's role when it is at least `minimum`; 404 for a non-member, 403 for a lower role. */
  requireRole(workspaceId: string, userId: string, minimum: Role, what?: string): Promise<Role>;
  /** Keeps the projection current from `member.*` and `workspace.deleted` events. */
  startProjection(bus: EventBus): Promise<{ stop(): Promise<void> }>;
}

export interface MembershipOptions {
  pool: DatabasePool;
  config: Pick<Config, 'urls' | 'internalTokenSecret'>;
  /** The calling service: names its consumer `<service>-membership` and its service tokens. */
  service: string;
  logger: MembershipLogger;
  /**
   * How long an answer may be reused from memory. Short, because removing a member must revoke
   * access on every service within a second (ARCHITECTURE 5.13).
   */
  cacheMs?: number;
}

const row = z.object({ role: z.string() });
const remote = z.object({ data: z.object({ role: z.string(), memberId: z.string().nullable().optional() }) });

export function createMembershipAccess(options: MembershipOptions): MembershipAccess {
  const { pool, config, logger } = options;
  const cacheMs = options.cacheMs ?? 500;
  const cache = new Map<string, { role: Role | null; until: number }>();
  const serviceToken = serviceTokenSource(config.internalTokenSecret, options.service);

  const forget = (workspaceId: string, userId?: string) => {
    if (userId) cache.delete(`${workspaceId}:${userId}`);
    else for (const key of cache.keys()) if (key.startsWith(`${workspaceId}:`)) cache.delete(key);
  };

  /** Asks the workspace service when the projection has no row (e.g. a workspace made a moment ago). */
  async function readThrough(workspaceId: string, userId: string): Promise<Role | null> {
    const url = `${config.urls.workspace}/internal/workspaces/${workspaceId}/members/${userId}`;
    const res = await fetch(url, { headers: { 'x-wiki-identity': await serviceToken() }, signal: AbortSignal.timeout(5000) });
    if (res.status === 404) return null;
    if (!res.ok) throw new Error(`membership lookup answered ${res.status}`);
    const { data } = remote.parse(await res.json());
    if (!isRole(data.role)) throw new Error(`membership lookup returned unknown role ${data.role}`);
    await pool.query(sql.unsafe`
      INSERT INTO membership_projection (workspace_id, user_id, member_id, role)
      VALUES (${workspaceId}, ${userId}, ${data.memberId ?? null}, ${data.role})
      ON CONFLICT (workspace_id, user_id) DO NOTHING`);
    return data.role;
  }

  async function roleOf(workspaceId: string, userId: string): Promise<Role | null> {
    const key = `${workspaceId}:${userId}`;
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && hit.until > now) return hit.role;
    const found = await pool.maybeOne(
      sql.type(row)`SELECT role FROM membership_projection WHERE workspace_id = ${workspaceId} AND user_id = ${userId}`,
    );
    const role = found ? (found.role as Role) : await readThrough(workspaceId, userId);
    if (cache.size > 50_000) cache.clear();
    cache.set(key, { role, until: now + cacheMs });
    return role;
  }

  async function apply(event: EventEnvelope, tx: DatabaseTransactionConnection): Promise<void> {
    const data = event.data as { workspaceId?: string; userId?: string; memberId?: string; role?: string; id?: string };
    switch (event.type) {
      case 'member.added':
      case 'member.role_changed':
        if (!data.workspaceId || !data.userId || !isRole(data.role)) throw new Error(`malformed ${event.type} event`);
        await tx.query(sql.unsafe`
          INSERT INTO membership_projection (workspace_id, user_id, member_id, role, updated_at)
          VALUES (${data.workspaceId}, ${data.userId}, ${data.memberId ?? null}, ${data.role}, now())
          ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = EXCLUDED.role, member_id = EXCLUDED.member_id, updated_at = now()`);
        forget(data.workspaceId, data.userId);
        break;
      case 'member.removed':
        if (!data.workspaceId || !data.userId) throw new Error('malformed member.removed event');
        await tx.query(sql.unsafe`DELETE FROM membership_projection WHERE workspace_id = ${data.workspaceId} AND user_id = ${data.userId}`);
        forget(data.workspaceId, data.userId);
        break;
      case 'workspace.deleted': {
        const workspaceId = data.id ?? event.workspaceId;
        if (!workspaceId) throw new Error('malformed workspace.deleted event');
        await tx.query(sql.unsafe`DELETE FROM membership_projection WHERE workspace_id = ${workspaceId}`);
        forget(workspaceId);
        break;
      }
    }
  }

  return {
    roleOf,
    async requireRole(workspaceId, userId, minimum, what = 'Workspace') {
      const role = await roleOf(workspaceId, userId);
      if (!role) throw notFound(what);
      if (!atLeast(role, minimum)) throw forbidden(`This needs the ${minimum} role or higher`);
      return role;
    },
    // Two consumers, each with one subject filter: NATS 2.9 has no multi-filter consumers, and one
    // consumer for all four types would filter on `<prefix>.>` and read every event of the system.
    async startProjection(bus) {
      const common = { bus, pool, handle: apply, logger };
      const members = await startConsumer({ ...common, name: `${options.service}-membership`, types: ['member.*'] });
      const purge = await startConsumer({ ...common, name: `${options.service}-membership-purge`, types: ['workspace.deleted'] });
      return { stop: async () => void (await Promise.all([members.stop(), purge.stop()])) };
    },
  };
}
