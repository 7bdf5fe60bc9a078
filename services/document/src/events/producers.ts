import type { CommonQueryMethods } from '@wiki/db';
import {
  capText,
  createEnvelope,
  type DocumentChange,
  EVENT_MAX_IDS,
  type EventEnvelope,
  newEvent,
  publishInTx,
  splitIds,
} from '@wiki/events';
import type { DocumentState } from '../db/documents.js';

export type { DocumentChange };

/**
 * The document.* events (ARCHITECTURE 4), written to the outbox in the caller's transaction, their
 * data typed by the contracts of @wiki/events. Every event carries the document's id,
 * workspaceId, createdBy (its creator, for search's author filter), parentId, title, icon, flags (isArchived, isPublished, isTemplate) and updatedAt;
 * created and updated also its plain text for the search index, cut to a cap (plainTextTruncated
 * says so; the whole text is at GET /internal/documents/{id}/text). Events about a subtree
 * (archived, restored, deleted) name every affected document in `ids`, split over several events
 * of at most EVENT_MAX_IDS ids each (`part` of `parts`): no event grows with the tree.
 */

function describe(doc: DocumentState) {
  return {
    id: doc.id,
    workspaceId: doc.workspaceId,
    createdBy: doc.createdBy,
    parentId: doc.parentId,
    title: doc.title,
    icon: doc.icon,
    isArchived: doc.isArchived,
    isPublished: doc.isPublished,
    isTemplate: doc.isTemplate,
    updatedAt: doc.updatedAt,
  };
}

/** The plain text as events carry it: cut to the cap, with the flag. */
function eventText(plainText: string) {
  const { text, truncated } = capText(plainText);
  return { plainText: text, plainTextTruncated: truncated };
}

/** The ids in parts of at most EVENT_MAX_IDS, each with its place: one event per part. */
function idParts(ids: string[]) {
  const pieces = splitIds(ids);
  return pieces.map((piece, i) => ({ ids: piece, part: i + 1, parts: pieces.length }));
}

/** document.created, not yet written: the insert writes it with the document (db/prepared-statements.ts). */
export const createdEnvelope = (actorId: string, doc: DocumentState): EventEnvelope =>
  createEnvelope(
    newEvent('document.created', {
      actorId,
      workspaceId: doc.workspaceId,
      data: { ...describe(doc), ...eventText(doc.plainText) },
    }),
  );

/** `changed` names the fields that changed; `editors`, everyone whose edits it holds (a collab save). */
export const emitUpdated = (
  tx: CommonQueryMethods,
  actorId: string | null,
  doc: DocumentState,
  changed: DocumentChange[],
  plainText = doc.plainText,
  editors: readonly string[] = [],
) =>
  publishInTx(
    tx,
    newEvent('document.updated', {
      actorId,
      workspaceId: doc.workspaceId,
      data: {
        ...describe(doc),
        ...eventText(plainText),
        changed,
        revision: doc.revision,
        // Bounded like every id list of an event; the first ones are kept.
        ...(editors.length > 0 ? { editors: editors.slice(0, EVENT_MAX_IDS) } : {}),
      },
    }),
  );

export const emitMoved = (
  tx: CommonQueryMethods,
  actorId: string,
  doc: DocumentState,
  previousParentId: string | null,
  reason: 'move' | 'parent-deleted' | 'restore',
) =>
  publishInTx(
    tx,
    newEvent('document.moved', {
      actorId,
      workspaceId: doc.workspaceId,
      data: { ...describe(doc), previousParentId, reason },
    }),
  );

/** `ids`: the document and every descendant that this archiving hid. */
export async function emitArchived(tx: CommonQueryMethods, actorId: string, doc: DocumentState, ids: string[]) {
  for (const part of idParts(ids))
    await publishInTx(
      tx,
      newEvent('document.archived', { actorId, workspaceId: doc.workspaceId, data: { ...describe(doc), ...part } }),
    );
}

/** `ids`: the document and every descendant that this restoring brought back. */
export async function emitRestored(tx: CommonQueryMethods, actorId: string, doc: DocumentState, ids: string[]) {
  for (const part of idParts(ids))
    await publishInTx(
      tx,
      newEvent('document.restored', { actorId, workspaceId: doc.workspaceId, data: { ...describe(doc), ...part } }),
    );
}

export const emitPublication = (tx: CommonQueryMethods, actorId: string, doc: DocumentState) =>
  publishInTx(
    tx,
    newEvent(doc.isPublished ? 'document.published' : 'document.unpublished', {
      actorId,
      workspaceId: doc.workspaceId,
      data: describe(doc),
    }),
  );

/**
 * `ids`: every removed document (the subtree of a cascade, or the document alone); `cascade`
 * says which. A plain delete also sends one document.moved per child it made a root document.
 */
export async function emitDeleted(
  tx: CommonQueryMethods,
  actorId: string,
  doc: DocumentState,
  ids: string[],
  cascade: boolean,
) {
  for (const part of idParts(ids))
    await publishInTx(
      tx,
      newEvent('document.deleted', {
        actorId,
        workspaceId: doc.workspaceId,
        data: { ...describe(doc), ...part, cascade },
      }),
    );
}
