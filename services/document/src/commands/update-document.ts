import { deriveText } from '@wiki/blocks';
import { type CommonQueryMethods, sql, z } from '@wiki/db';
import {
  checkEnvelopeSize,
  createEnvelope,
  EVENT_TEXT_MAX_BYTES,
  type EventEnvelope,
  eventMaxBytes,
} from '@wiki/events';
import { AppError, notFound } from '@wiki/http';
import type { Actor, DocumentContext } from '../context.js';
import { type DocumentDetail, type DocumentState, findState, stateOf } from '../db/documents.js';
import { editFieldsInTx, type FieldsEdit, type FieldsUpdate, type FieldsUpdated } from '../db/field-edits.js';
import { emptyContent, parseContent } from '../domain/content.js';
import { checkCoverImageUrl } from '../domain/cover-image.js';
import type { EditSource } from '../domain/edit-source.js';
import { type DocumentChange, emitArchived, emitMoved, emitRestored } from '../events/producers.js';
import { archivedConflict, requireDocumentRole } from './access.js';
import { archiveSubtree, restoreSubtree } from './archive.js';
import { lockTreeExclusive } from './tree-lock.js';

export interface UpdateInput {
  title?: string;
  content?: unknown;
  icon?: string | null;
  coverImageUrl?: string | null;
  isArchived?: boolean;
}

/** How a write is made, besides its fields. */
export interface WriteOptions {
  /** Kept on the revision the write makes (default EDIT). */
  source?: EditSource;
  /** The revision the writer saw (If-Match or lastRevision): when the document moved on, a 412 that changes nothing. */
  expectedRevision?: number;
}

/**
 * Room the statement's share of a document.updated envelope may take beyond the template: the text
 * at its cap, a title (500 characters) and icon (50) at 6 bytes each, ids, flags and a timestamp.
 */
const UPDATED_DATA_ROOM = EVENT_TEXT_MAX_BYTES + 8 * 1024;

/**
 * PUT /documents/{id}: changes the given fields (the others stay) and, with isArchived, archives
 * or restores the document with its subtree. Needs EDITOR. Sends document.updated when a field
 * was given, document.archived/restored when the flag changed. `content: null` is an empty
 * document, as on create.
 *
 * An archived document is read-only until restored: a body with isArchived false restores it
 * first and then applies its other fields; any field change without it is a 409 and changes
 * nothing. The check reads the row under its lock, so it cannot race an archiving.
 *
 * The field change is one rule, the statement of db/field-edits.ts (archived check, change, event
 * and answer). Without isArchived (the everyday edit) it runs alone, as its own transaction, and
 * answers the document as the GET reads it; with isArchived, or when its event might be over the
 * cap, it runs inside the transaction below. `options.expectedRevision` is checked on the locked
 * row (in the statement, or in the transaction before anything changes); `options.source` goes
 * with the change to the history. A restore of a revision is this same write with source RESTORE.
 */
export async function updateDocument(
  ctx: DocumentContext,
  actor: Actor,
  id: string,
  input: UpdateInput,
  options: WriteOptions = {},
): Promise<DocumentDetail | undefined> {
  const workspaceId = await requireDocumentRole(ctx, id, actor.userId, 'EDITOR', actor.requestId);
  const { fields, changed } = fieldsOf(input);
  const flagGiven = input.isArchived !== undefined;
  const { expectedRevision } = options;
  if (changed.length === 0 && !flagGiven) {
    // Nothing to write; a writer who names a revision still learns that the document moved on.
    if (expectedRevision !== undefined) {
      const doc = await findState(ctx.pool, id);
      if (!doc) throw notFound('Document');
      requireRevision(doc.revision, expectedRevision);
    }
    return;
  }
  if (changed.length > 0) await ctx.users.remember(actor);
  // The envelope is made when the edit is written, so that its time follows a restore's.
  const editNow = (): FieldsEdit => ({
    id,
    actorId: actor.userId,
    fields,
    template: createEnvelope({ type: 'document.updated', actorId: actor.userId, workspaceId, data: { changed } }),
    source: options.source,
    expectedRevision,
  });
  if (changed.length > 0 && !flagGiven) {
    const edit = editNow();
    if (fitsUnmeasured(edit.template)) return editAlone(ctx, edit);
  }

  await ctx.pool.transaction(async (tx) => {
    if (flagGiven) await lockTreeExclusive(tx, workspaceId);
    let doc: DocumentState | null = await findState(tx, id, 'update');
    if (!doc) throw notFound('Document');
    if (expectedRevision !== undefined) requireRevision(doc.revision, expectedRevision);
    if (input.isArchived === false && doc.isArchived) {
      const { ids, rerootedFrom } = await restoreSubtree(tx, doc);
      doc = await stateOf(tx, id);
      await emitRestored(tx, actor.userId, doc, ids);
      if (rerootedFrom) await emitMoved(tx, actor.userId, doc, rerootedFrom, 'restore');
    }
    if (changed.length > 0) {
      await editInTx(tx, editNow());
      doc = await stateOf(tx, id);
    }
    if (input.isArchived === true && !doc.isArchived) {
      const ids = await archiveSubtree(tx, doc);
      doc = await stateOf(tx, id);
      await emitArchived(tx, actor.userId, doc, ids);
    }
  });
}

/** The fields a body changes, as the edit statement takes them, and their names for the event. */
function fieldsOf(input: UpdateInput): { fields: FieldsUpdate; changed: DocumentChange[] } {
  const fields: FieldsUpdate = {};
  const changed: DocumentChange[] = [];
  if (input.title !== undefined) {
    fields.title = input.title;
    changed.push('title');
  }
  if (input.content !== undefined) {
    const content = input.content === null ? emptyContent() : parseContent(input.content);
    fields.content = { json: content.json, ...deriveText(content.blocks) };
    changed.push('content');
  }
  if (input.icon !== undefined) {
    fields.icon = input.icon;
    changed.push('icon');
  }
  checkCoverImageUrl(input.coverImageUrl);
  if (input.coverImageUrl !== undefined) {
    fields.coverImageUrl = input.coverImageUrl;
    changed.push('coverImageUrl');
  }
  return { fields, changed };
}

/**
 * Whether the event of an edit with this template is under the cap whatever the statement puts in
 * its data. Always, under the default cap; under a cap too small for any text at its cap, the event
 * is measured once written.
 */
export const fitsUnmeasured = (template: EventEnvelope): boolean =>
  JSON.stringify(template).length * 3 + UPDATED_DATA_ROOM <= eventMaxBytes();

/** The one-statement edit: the fields change and document.updated is written, or nothing happens. */
async function editAlone(ctx: DocumentContext, edit: FieldsEdit): Promise<DocumentDetail> {
  const document = editedOrThrow(await ctx.prepared.updateFields(edit));
  ctx.wakeRelay();
  return document;
}

/**
 * The edit rule inside the caller's transaction (an archiving, an append, a restore around it): the
 * document as edited, or a 404/409/412. Over the cap, the event fails its transaction (413), as
 * publishInTx's would.
 */
export async function editInTx(tx: CommonQueryMethods, edit: FieldsEdit): Promise<DocumentDetail> {
  const document = editedOrThrow(await editFieldsInTx(tx, edit));
  if (!fitsUnmeasured(edit.template)) checkEnvelopeSize(await writtenEnvelope(tx, edit.template.id));
  return document;
}

export function editedOrThrow(result: FieldsUpdated): DocumentDetail {
  if (result.outcome === 'missing') throw notFound('Document');
  if (result.outcome === 'archived') throw archivedConflict('editing');
  if (result.outcome === 'stale') throw revisionMoved(result.current);
  return result.document;
}

/** The 412 of ARCHITECTURE 5.16 when the document is not at the revision the writer named. */
export function requireRevision(current: number, expected: number): void {
  if (current !== expected) throw revisionMoved(current);
}

const revisionMoved = (current: number) => {
  const message = `The document is at revision ${current} now; read it again and reapply the change`;
  return new AppError('PRECONDITION_FAILED', message, [{ field: 'revision', message, current }]);
};

/** The envelope as the statement wrote it to the outbox. */
export const writtenEnvelope = (tx: CommonQueryMethods, eventId: string): Promise<EventEnvelope> =>
  tx.oneFirst(sql.type(z.object({ envelope: z.any() }))`SELECT envelope FROM event_outbox WHERE id = ${eventId}`);
