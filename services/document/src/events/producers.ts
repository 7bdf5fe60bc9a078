import type { CommonQueryMethods } from '@wiki/db';
import { createEnvelope, type EventEnvelope, type NewEvent, publishInTx } from '@wiki/events';
import type { DocumentState } from '../db/documents.js';

/**
 * The document.* events (ARCHITECTURE 4), written to the outbox in the caller's transaction.
 * Every event carries the document's id, workspaceId, parentId, title, icon and flags; created
 * and updated also its plain text for the search index. Events about a subtree (archived,
 * restored, deleted) name every affected document in `ids`.
 */

function describe(doc: DocumentState) {
  return {
    id: doc.id,
    workspaceId: doc.workspaceId,
    parentId: doc.parentId,
    title: doc.title,
    icon: doc.icon,
    isArchived: doc.isArchived,
    isPublished: doc.isPublished,
    isTemplate: doc.isTemplate,
    updatedAt: doc.updatedAt,
  };
}

function event(
  type: string,
  actorId: string | null,
  doc: DocumentState,
  extra: Record<string, unknown> = {},
): NewEvent {
  return { type: `document.${type}`, actorId, workspaceId: doc.workspaceId, data: { ...describe(doc), ...extra } };
}

function emit(
  tx: CommonQueryMethods,
  type: string,
  actorId: string | null,
  doc: DocumentState,
  extra: Record<string, unknown> = {},
) {
  return publishInTx(tx, event(type, actorId, doc, extra));
}

/** document.created, not yet written: the insert writes it with the document (db/prepared-statements.ts). */
export const createdEnvelope = (actorId: string, doc: DocumentState): EventEnvelope =>
  createEnvelope(event('created', actorId, doc, { plainText: doc.plainText }));

/** `changed` names the fields that changed (title, content, icon, coverImageUrl, lastEditedBy). */
export const emitUpdated = (
  tx: CommonQueryMethods,
  actorId: string | null,
  doc: DocumentState,
  changed: string[],
  plainText = doc.plainText,
) => emit(tx, 'updated', actorId, doc, { plainText, changed });

export const emitMoved = (
  tx: CommonQueryMethods,
  actorId: string,
  doc: DocumentState,
  previousParentId: string | null,
  reason: 'move' | 'parent-deleted' | 'restore',
) => emit(tx, 'moved', actorId, doc, { previousParentId, reason });

/** `ids`: the document and every descendant that this archiving hid. */
export const emitArchived = (tx: CommonQueryMethods, actorId: string, doc: DocumentState, ids: string[]) =>
  emit(tx, 'archived', actorId, doc, { ids });

/** `ids`: the document and every descendant that this restoring brought back. */
export const emitRestored = (tx: CommonQueryMethods, actorId: string, doc: DocumentState, ids: string[]) =>
  emit(tx, 'restored', actorId, doc, { ids });

export const emitPublication = (tx: CommonQueryMethods, actorId: string, doc: DocumentState) =>
  emit(tx, doc.isPublished ? 'published' : 'unpublished', actorId, doc);

/**
 * `ids`: every removed document (the subtree of a cascade, or the document alone); `cascade`
 * says which. A plain delete also sends one document.moved per child it made a root document.
 */
export const emitDeleted = (
  tx: CommonQueryMethods,
  actorId: string,
  doc: DocumentState,
  ids: string[],
  cascade: boolean,
) => emit(tx, 'deleted', actorId, doc, { ids, cascade });
