import { type CommonQueryMethods, sql, z } from '@wiki/db';

export const WorkspaceRow = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  icon: z.string().nullable(),
  color: z.string().nullable(),
  ownerId: z.string(),
  isDefault: z.boolean(),
  isArchived: z.boolean(),
  documentCount: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type WorkspaceRow = z.infer<typeof WorkspaceRow>;

const columns = sql.fragment`
  w.id, w.name, w.description, w.icon, w.color, w.owner_id AS "ownerId", w.is_default AS "isDefault",
  w.is_archived AS "isArchived", w.document_count AS "documentCount", w.created_at AS "createdAt",
  w.updated_at AS "updatedAt"`;

export interface NewWorkspace {
  name: string;
  description?: string | null;
  icon?: string | null;
  color?: string | null;
  ownerId: string;
  isDefault?: boolean;
}

export function insertWorkspace(db: CommonQueryMethods, ws: NewWorkspace): Promise<WorkspaceRow> {
  return db.one(sql.type(WorkspaceRow)`
    INSERT INTO workspaces AS w (name, description, icon, color, owner_id, is_default)
    VALUES (${ws.name}, ${ws.description ?? null}, ${ws.icon ?? null}, ${ws.color ?? null}, ${ws.ownerId}, ${ws.isDefault ?? false})
    RETURNING ${columns}`);
}

export function findWorkspace(db: CommonQueryMethods, id: string, lock = false): Promise<WorkspaceRow | null> {
  return db.maybeOne(sql.type(WorkspaceRow)`
    SELECT ${columns} FROM workspaces w WHERE w.id = ${id} ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
}

/** The workspaces a user is a member of, oldest first (the default one comes first). */
export function listWorkspacesOfUser(db: CommonQueryMethods, userId: string): Promise<readonly WorkspaceRow[]> {
  return db.any(sql.type(WorkspaceRow)`
    SELECT ${columns} FROM workspaces w
    JOIN workspace_members m ON m.workspace_id = w.id AND m.user_id = ${userId}
    ORDER BY w.is_default DESC, w.created_at, w.id`);
}

export interface WorkspacePatch {
  name?: string;
  description?: string | null;
  icon?: string | null;
  color?: string | null;
  isArchived?: boolean;
}

export function updateWorkspace(db: CommonQueryMethods, id: string, patch: WorkspacePatch): Promise<WorkspaceRow> {
  const sets = [sql.fragment`updated_at = now()`];
  if (patch.name !== undefined) sets.push(sql.fragment`name = ${patch.name}`);
  if (patch.description !== undefined) sets.push(sql.fragment`description = ${patch.description}`);
  if (patch.icon !== undefined) sets.push(sql.fragment`icon = ${patch.icon}`);
  if (patch.color !== undefined) sets.push(sql.fragment`color = ${patch.color}`);
  if (patch.isArchived !== undefined) sets.push(sql.fragment`is_archived = ${patch.isArchived}`);
  return db.one(sql.type(WorkspaceRow)`
    UPDATE workspaces w SET ${sql.join(sets, sql.fragment`, `)} WHERE w.id = ${id} RETURNING ${columns}`);
}

export function setWorkspaceOwner(db: CommonQueryMethods, id: string, ownerId: string): Promise<WorkspaceRow> {
  return db.one(sql.type(WorkspaceRow)`
    UPDATE workspaces w SET owner_id = ${ownerId}, updated_at = now() WHERE w.id = ${id} RETURNING ${columns}`);
}

/** Members, invitations and counted documents go with it (ON DELETE CASCADE). */
export async function deleteWorkspace(db: CommonQueryMethods, id: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM workspaces WHERE id = ${id}`);
}
