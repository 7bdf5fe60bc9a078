import { type CommonQueryMethods, sql } from '@wiki/db';
import { type EventEnvelope, noteEventsWritten, serializeWithinCap } from '@wiki/events';
import { invalidField, refusal } from '@wiki/http';
import type { DocumentContext } from '../context.js';
import { type DocumentState, nextPositions } from '../db/documents.js';
import { existingDocuments, type ImportedRow, insertImported, lockImport, lockParents } from '../db/imports.js';
import { type ImportedDocumentInput, planImport } from '../domain/import-batch.js';
import { createdEnvelope } from '../events/producers.js';

export interface ImportCall {
  /** Ties the calls of one import together (the import job's id): retries and the rollback find them by it. */
  importId: string;
  workspaceId: string;
  /** Where the import goes: a document of the workspace, or null for the root. */
  parentId: string | null;
  /** Who imports: needs EDITOR; the documents' creator. */
  userId: string;
  documents: readonly ImportedDocumentInput[];
  requestId?: string;
}

export interface ImportAnswer {
  /** The call's documents, in the order given, whether this call or an earlier try made them. */
  documentIds: string[];
  /** How many this call made (0 when a retried call found them all). */
  created: number;
}

const idTaken = () =>
  refusal('DOCUMENT_ID_TAKEN', 'A document id of the import is taken by a document that is not this import’s');

/**
 * POST /internal/documents/import (ARCHITECTURE 5.19): the documents of one call, in ONE
 * transaction: all are made, with their first revision (source IMPORT) and their document.created
 * events, or none. Idempotent per import: a document this import made already is answered again,
 * not made twice (a job retried after a crash); an id taken by any other document is a 409.
 */
export async function importDocuments(ctx: DocumentContext, call: ImportCall): Promise<ImportAnswer> {
  await ctx.membership.requireRole(call.workspaceId, call.userId, 'EDITOR', 'Workspace', call.requestId);
  const plan = planImport(call.parentId, call.documents);
  const documentIds = call.documents.map((d) => d.id.toLowerCase());

  const created = await ctx.pool.transaction(async (tx) => {
    await lockImport(tx, call.importId);
    const existing = await existingDocuments(tx, documentIds);
    for (const doc of existing) {
      if (doc.workspaceId !== call.workspaceId || doc.importId !== call.importId) throw idTaken();
    }
    const made = new Set(existing.map((d) => d.id));
    const missing = plan.documents.filter((d) => !made.has(d.id));
    if (missing.length === 0) return 0;

    await checkParents(tx, call, plan.earlierParents);
    const positions = await nextPositions(tx, missing.length);
    const rows: ImportedRow[] = missing.map((d, i) => ({
      id: d.id,
      parentId: d.parentId,
      position: positions[i],
      title: d.title,
      content: d.content,
      ...d.text,
      icon: d.icon,
    }));
    const stamped = await insertImported(tx, call.importId, call.workspaceId, call.userId, rows);
    const envelopes = rows.map((row) =>
      createdEnvelope(call.userId, {
        id: row.id,
        workspaceId: call.workspaceId,
        createdBy: call.userId,
        parentId: row.parentId,
        title: row.title,
        icon: row.icon,
        plainText: row.plainText,
        isTemplate: false,
        isArchived: false,
        archiveRootId: null,
        isPublished: false,
        revision: 1,
        updatedAt: stamped.get(row.id) ?? '',
      } satisfies DocumentState),
    );
    await writeEvents(tx, envelopes);
    return rows.length;
  });
  return { documentIds, created };
}

/**
 * The import's place exists in the workspace and is not archived (the same 400 as a create's
 * parentId); a parent outside the call was made by an earlier call of this import.
 */
async function checkParents(tx: CommonQueryMethods, call: ImportCall, earlier: readonly string[]): Promise<void> {
  const wanted = call.parentId ? [call.parentId, ...earlier] : [...earlier];
  if (wanted.length === 0) return;
  const found = new Map((await lockParents(tx, wanted)).map((p) => [p.id, p]));
  if (call.parentId) {
    const parent = found.get(call.parentId);
    if (!parent || parent.workspaceId !== call.workspaceId)
      throw invalidField('parentId', 'must be a document of the same workspace');
    if (parent.isArchived) throw invalidField('parentId', 'is archived: restore it before adding documents under it');
  }
  for (const id of earlier) {
    const parent = found.get(id);
    const index = call.documents.findIndex((d) => d.parentId?.toLowerCase() === id);
    const field = `documents[${index}].parentId`;
    if (!parent || parent.workspaceId !== call.workspaceId || parent.importId !== call.importId)
      throw invalidField(field, 'must be a document of this call, or of an earlier call of the same import');
    if (parent.isArchived) throw invalidField(field, 'is archived: restore it before adding documents under it');
  }
}

/** The events in one statement, in the order given (parents before children); each within the event cap. */
async function writeEvents(tx: CommonQueryMethods, envelopes: readonly EventEnvelope[]): Promise<void> {
  const json = `[${envelopes.map((e) => serializeWithinCap(e)).join(',')}]`;
  await tx.query(sql.unsafe`
    INSERT INTO event_outbox (id, type, envelope)
    SELECT (x.e->>'id')::uuid, x.e->>'type', x.e FROM jsonb_array_elements(${json}::jsonb) WITH ORDINALITY AS x(e, ord)
    ORDER BY x.ord`);
  noteEventsWritten(tx);
}
