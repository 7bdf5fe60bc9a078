import { type CommonQueryMethods, sql, z } from '@wiki/db';
import { iso } from './shape.js';

/**
 * The documents of an import (migrations/0014_document_imports.sql). An import's calls and its
 * rollback hold its lock for their transaction, so one import's calls never interleave.
 */
export async function lockImport(db: CommonQueryMethods, importId: string): Promise<void> {
  await db.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`document-import:${importId}`}, 0))`);
}

const Existing = z.object({ id: z.string(), workspaceId: z.string(), importId: z.string().nullable() });
export type ExistingDocument = z.infer<typeof Existing>;

/** Which of these ids are documents already, with their workspace and the import that made them. */
export function existingDocuments(
  db: CommonQueryMethods,
  ids: readonly string[],
): Promise<readonly ExistingDocument[]> {
  return db.any(sql.type(Existing)`
    SELECT d.id, d.workspace_id AS "workspaceId", i.import_id AS "importId"
    FROM documents d LEFT JOIN document_imports i ON i.document_id = d.id
    WHERE d.id = ANY(${sql.array(ids, 'uuid')})`);
}

const Parent = z.object({
  id: z.string(),
  workspaceId: z.string(),
  isArchived: z.boolean(),
  importId: z.string().nullable(),
});
export type ImportParent = z.infer<typeof Parent>;

/**
 * The parents the new documents go under, share-locked until the transaction ends: an archive or
 * delete of their subtree waits for the import and then sees its documents (see lockSubtree).
 */
export function lockParents(db: CommonQueryMethods, ids: readonly string[]): Promise<readonly ImportParent[]> {
  return db.any(sql.type(Parent)`
    SELECT d.id, d.workspace_id AS "workspaceId", d.is_archived AS "isArchived", i.import_id AS "importId"
    FROM documents d LEFT JOIN document_imports i ON i.document_id = d.id
    WHERE d.id = ANY(${sql.array(ids, 'uuid')})
    ORDER BY d.id
    FOR SHARE OF d`);
}

export interface ImportedRow {
  id: string;
  parentId: string | null;
  position: number;
  title: string;
  content: string;
  plainText: string;
  excerpt: string;
  wordCount: number;
  icon: string | null;
}

const Inserted = z.object({ id: z.string(), updatedAt: z.string() });

/**
 * Inserts the documents with their first revision (source IMPORT: the history trigger of
 * migrations/0009 reads edit_source on insert) and records them as the import's. The rows come in
 * as one JSON value: one statement whatever their number.
 */
export async function insertImported(
  db: CommonQueryMethods,
  importId: string,
  workspaceId: string,
  userId: string,
  rows: readonly ImportedRow[],
): Promise<Map<string, string>> {
  const json = JSON.stringify(
    rows.map((r) => ({
      id: r.id,
      parent_id: r.parentId,
      position: r.position,
      title: r.title,
      content: r.content,
      plain_text: r.plainText,
      excerpt: r.excerpt,
      word_count: r.wordCount,
      icon: r.icon,
    })),
  );
  const inserted = await db.any(sql.type(Inserted)`
    INSERT INTO documents AS d (id, workspace_id, parent_id, position, title, content, plain_text, excerpt,
      word_count, icon, owner_id, created_by, last_edited_by, edit_source)
    SELECT i.id, ${workspaceId}, i.parent_id, i.position, i.title, i.content, i.plain_text, i.excerpt,
      i.word_count, i.icon, ${userId}, ${userId}, ${userId}, 'IMPORT'
    FROM json_to_recordset(${json}::json) AS i(id uuid, parent_id uuid, position bigint, title text, content text,
      plain_text text, excerpt text, word_count int, icon text)
    ORDER BY i.position
    RETURNING d.id, ${iso(sql.fragment`d.updated_at`)} AS "updatedAt"`);
  await db.query(sql.unsafe`
    INSERT INTO document_imports (document_id, import_id, workspace_id)
    SELECT unnest(${sql.array(
      rows.map((r) => r.id),
      'uuid',
    )}), ${importId}, ${workspaceId}`);
  return new Map(inserted.map((r) => [r.id, r.updatedAt]));
}

const Imported = z.object({ id: z.string(), workspaceId: z.string(), parentId: z.string().nullable() });
export type ImportedDocument = z.infer<typeof Imported>;

/** Every document the import made that still exists, where it is now. */
export function documentsOfImport(db: CommonQueryMethods, importId: string): Promise<readonly ImportedDocument[]> {
  return db.any(sql.type(Imported)`
    SELECT d.id, d.workspace_id AS "workspaceId", d.parent_id AS "parentId"
    FROM document_imports i JOIN documents d ON d.id = i.document_id
    WHERE i.import_id = ${importId}
    ORDER BY d.position`);
}

/** Documents directly under these ones that are not among them (someone added them meanwhile), in order. */
export function childrenOutside(db: CommonQueryMethods, ids: readonly string[]): Promise<readonly ImportedDocument[]> {
  return db.any(sql.type(Imported)`
    SELECT d.id, d.workspace_id AS "workspaceId", d.parent_id AS "parentId" FROM documents d
    WHERE d.parent_id = ANY(${sql.array(ids, 'uuid')}) AND NOT d.id = ANY(${sql.array(ids, 'uuid')})
    ORDER BY d.position`);
}
