import { type CommonQueryMethods, sql, z } from '@wiki/db';

/** Keeps a workspace's name unless the row holds a more recent event. */
export async function upsertWorkspaceName(db: CommonQueryMethods, id: string, name: string, at: string) {
  await db.query(sql.unsafe`
    INSERT INTO workspace_names AS w (id, name, event_at) VALUES (${id}, ${name}, ${at})
    ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, event_at = EXCLUDED.event_at
      WHERE w.event_at <= EXCLUDED.event_at`);
}

export async function deleteWorkspaceName(db: CommonQueryMethods, id: string) {
  await db.query(sql.unsafe`DELETE FROM workspace_names WHERE id = ${id}`);
}

/** Keeps a document's title (and workspace, which the watch routes check) unless the row holds a more recent event. */
export async function upsertDocumentTitle(
  db: CommonQueryMethods,
  id: string,
  title: string,
  at: string,
  workspaceId: string,
) {
  await db.query(sql.unsafe`
    INSERT INTO document_titles AS d (id, title, event_at, workspace_id) VALUES (${id}, ${title}, ${at}, ${workspaceId})
    ON CONFLICT (id) DO UPDATE
      SET title = EXCLUDED.title, event_at = EXCLUDED.event_at, workspace_id = EXCLUDED.workspace_id
      WHERE d.event_at <= EXCLUDED.event_at`);
}

export async function deleteDocumentTitles(db: CommonQueryMethods, ids: readonly string[]) {
  await db.query(sql.unsafe`DELETE FROM document_titles WHERE id = ANY(${sql.array(ids, 'uuid')})`);
}

const name = z.object({ name: z.string() });

export async function workspaceName(db: CommonQueryMethods, id: string | null): Promise<string | null> {
  if (!id) return null;
  return db.maybeOneFirst(sql.type(name)`SELECT name FROM workspace_names WHERE id = ${id}`);
}

/** A user the users projection knows by email (an invitation to someone who has signed in). */
export function userIdByEmail(db: CommonQueryMethods, email: string): Promise<string | null> {
  return db.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    SELECT id FROM projection_users WHERE lower(email) = lower(${email}) ORDER BY updated_at DESC LIMIT 1`);
}
