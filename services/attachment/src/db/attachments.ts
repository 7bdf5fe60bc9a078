import { type CommonQueryMethods, sql, z } from '@wiki/db';

export const AttachmentRow = z.object({
  id: z.string(),
  workspaceId: z.string(),
  documentId: z.string(),
  storageKey: z.string(),
  fileName: z.string(),
  fileSize: z.number(),
  mimeType: z.string(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  sha256: z.string(),
  uploadedBy: z.string(),
  createdAt: z.string(),
});
export type AttachmentRow = z.infer<typeof AttachmentRow>;

const columns = sql.fragment`
  id, workspace_id AS "workspaceId", document_id AS "documentId", storage_key AS "storageKey",
  file_name AS "fileName", file_size AS "fileSize", mime_type AS "mimeType", width, height, sha256,
  uploaded_by AS "uploadedBy", created_at AS "createdAt"`;

/** importId: the import that stored it (the internal route), for that import's rollback. */
export type NewAttachment = Omit<AttachmentRow, 'createdAt'> & { importId?: string | null };

/**
 * Stores the row unless its document or workspace was deleted meanwhile (a tombstone of
 * removed_owners): null then, and the caller removes the object it wrote.
 */
export function insertAttachment(db: CommonQueryMethods, a: NewAttachment): Promise<AttachmentRow | null> {
  return db.maybeOne(sql.type(AttachmentRow)`
    INSERT INTO attachments (id, workspace_id, document_id, storage_key, file_name, file_size, mime_type,
      width, height, sha256, uploaded_by, import_id)
    SELECT ${a.id}, ${a.workspaceId}, ${a.documentId}, ${a.storageKey}, ${a.fileName}, ${a.fileSize},
      ${a.mimeType}, ${a.width}, ${a.height}, ${a.sha256}, ${a.uploadedBy}, ${a.importId ?? null}
    WHERE NOT EXISTS (SELECT 1 FROM removed_owners WHERE id IN (${a.documentId}, ${a.workspaceId}))
    RETURNING ${columns}`);
}

export function findById(db: CommonQueryMethods, id: string): Promise<AttachmentRow | null> {
  return db.maybeOne(sql.type(AttachmentRow)`SELECT ${columns} FROM attachments WHERE id = ${id}`);
}

export function findByKey(db: CommonQueryMethods, key: string): Promise<AttachmentRow | null> {
  return db.maybeOne(sql.type(AttachmentRow)`SELECT ${columns} FROM attachments WHERE storage_key = ${key}`);
}

export function listByDocument(db: CommonQueryMethods, documentId: string): Promise<readonly AttachmentRow[]> {
  return db.any(sql.type(AttachmentRow)`
    SELECT ${columns} FROM attachments WHERE document_id = ${documentId} ORDER BY created_at, id`);
}

/** Removes the rows an import stored; what went. */
export function deleteByImport(db: CommonQueryMethods, importId: string): Promise<readonly AttachmentRow[]> {
  return db.any(sql.type(AttachmentRow)`DELETE FROM attachments WHERE import_id = ${importId} RETURNING ${columns}`);
}

/** Files still marked with their import, stored before `before` (ISO), oldest id first. */
export function staleImportFiles(
  db: CommonQueryMethods,
  before: string,
  limit: number,
): Promise<readonly AttachmentRow[]> {
  return db.any(sql.type(AttachmentRow)`
    SELECT ${columns} FROM attachments WHERE import_id IS NOT NULL AND created_at < ${before}::timestamptz
    ORDER BY id LIMIT ${limit}`);
}

/** Drops the import mark of these files: they are their documents' now. */
export async function settleImportFiles(db: CommonQueryMethods, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db.query(
    sql.unsafe`UPDATE attachments SET import_id = NULL WHERE id = ANY(${sql.array(ids, 'uuid')})`,
  );
  return result.rowCount;
}

export function deleteByIds(db: CommonQueryMethods, ids: readonly string[]): Promise<readonly AttachmentRow[]> {
  return db.any(sql.type(AttachmentRow)`
    DELETE FROM attachments WHERE id = ANY(${sql.array(ids, 'uuid')}) RETURNING ${columns}`);
}

export function deleteById(db: CommonQueryMethods, id: string): Promise<AttachmentRow | null> {
  return db.maybeOne(sql.type(AttachmentRow)`DELETE FROM attachments WHERE id = ${id} RETURNING ${columns}`);
}

/** Removes the rows of these documents and leaves a tombstone for each; the keys of what went. */
export async function removeDocuments(db: CommonQueryMethods, ids: readonly string[]): Promise<readonly string[]> {
  await db.query(sql.unsafe`
    INSERT INTO removed_owners (id, kind) SELECT unnest(${sql.array(ids, 'uuid')}), 'document'
    ON CONFLICT (id) DO NOTHING`);
  return db.anyFirst(sql.type(z.object({ storageKey: z.string() }))`
    DELETE FROM attachments WHERE document_id = ANY(${sql.array(ids, 'uuid')}) RETURNING storage_key AS "storageKey"`);
}

export async function removeWorkspace(db: CommonQueryMethods, id: string): Promise<readonly string[]> {
  await db.query(sql.unsafe`
    INSERT INTO removed_owners (id, kind) VALUES (${id}, 'workspace') ON CONFLICT (id) DO NOTHING`);
  return db.anyFirst(sql.type(z.object({ storageKey: z.string() }))`
    DELETE FROM attachments WHERE workspace_id = ${id} RETURNING storage_key AS "storageKey"`);
}

/** Which of `keys` a row names. */
export async function knownKeys(db: CommonQueryMethods, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db.anyFirst(sql.type(z.object({ storageKey: z.string() }))`
    SELECT storage_key AS "storageKey" FROM attachments WHERE storage_key = ANY(${sql.array(keys, 'text')})`);
  return new Set(rows);
}

/** Tombstones older than any upload could be: nothing can race with them any more. */
export async function pruneTombstones(db: CommonQueryMethods, olderThanMs: number): Promise<void> {
  await db.query(sql.unsafe`
    DELETE FROM removed_owners WHERE removed_at < now() - make_interval(secs => ${olderThanMs / 1000})`);
}
