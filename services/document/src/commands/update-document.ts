import { createEnvelope, EVENT_TEXT_MAX_BYTES, type EventEnvelope, eventMaxBytes } from '@wiki/events';
import { notFound } from '@wiki/http';
import type { Actor, DocumentContext } from '../context.js';
import { bumpContentRevision } from '../db/collab-states.js';
import {
  type DocumentDetail,
  type DocumentPatch,
  type DocumentState,
  findState,
  stateOf,
  updateDocument as writePatch,
} from '../db/documents.js';
import { emptyContent, parseContent } from '../domain/content.js';
import { checkCoverImageUrl } from '../domain/cover-image.js';
import { deriveText } from '../domain/plain-text.js';
import { type DocumentChange, emitArchived, emitMoved, emitRestored, emitUpdated } from '../events/producers.js';
import { archivedConflict, requireDocumentRole, requireNotArchived } from './access.js';
import { archiveSubtree, restoreSubtree } from './archive.js';
import { lockTreeExclusive } from './tree-lock.js';

export interface UpdateInput {
  title?: string;
  content?: unknown;
  icon?: string | null;
  coverImageUrl?: string | null;
  isArchived?: boolean;
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
 * Without isArchived (the everyday edit) the change, its event and the answer are one statement
 * (db/prepared-statements.ts UPDATE_FIELDS), which answers the document as the GET reads it.
 */
export async function updateDocument(
  ctx: DocumentContext,
  actor: Actor,
  id: string,
  input: UpdateInput,
): Promise<DocumentDetail | undefined> {
  const workspaceId = await requireDocumentRole(ctx, id, actor.userId, 'EDITOR', actor.requestId);
  const patch: DocumentPatch = {};
  const changed: DocumentChange[] = [];
  if (input.title !== undefined) {
    patch.title = input.title;
    changed.push('title');
  }
  if (input.content !== undefined) {
    const content = input.content === null ? emptyContent() : parseContent(input.content);
    patch.content = { json: content.json, ...deriveText(content.blocks) };
    changed.push('content');
  }
  if (input.icon !== undefined) {
    patch.icon = input.icon;
    changed.push('icon');
  }
  checkCoverImageUrl(input.coverImageUrl);
  if (input.coverImageUrl !== undefined) {
    patch.coverImageUrl = input.coverImageUrl;
    changed.push('coverImageUrl');
  }

  const flagGiven = input.isArchived !== undefined;
  if (changed.length === 0 && !flagGiven) return;
  if (changed.length > 0) await ctx.users.remember(actor);
  if (!flagGiven) {
    // The statement fills `data` from the changed row; only `changed` is known here. Under an event
    // cap too small for any text at its cap (never the default), the path below measures the real event.
    const template = createEnvelope({
      type: 'document.updated',
      actorId: actor.userId,
      workspaceId,
      data: { changed },
    });
    if (JSON.stringify(template).length * 3 + UPDATED_DATA_ROOM <= eventMaxBytes())
      return updateFields(ctx, actor, id, patch, template);
  }

  await ctx.pool.transaction(async (tx) => {
    if (flagGiven) await lockTreeExclusive(tx, workspaceId);
    let doc: DocumentState | null = await findState(tx, id, 'update');
    if (!doc) throw notFound('Document');
    if (input.isArchived === false && doc.isArchived) {
      const { ids, rerootedFrom } = await restoreSubtree(tx, doc);
      doc = await stateOf(tx, id);
      await emitRestored(tx, actor.userId, doc, ids);
      if (rerootedFrom) await emitMoved(tx, actor.userId, doc, rerootedFrom, 'restore');
    }
    if (changed.length > 0) {
      requireNotArchived(doc, 'editing');
      doc = await writePatch(tx, id, { ...patch, lastEditedBy: actor.userId });
      if (patch.content) await bumpContentRevision(tx, id);
      await emitUpdated(tx, actor.userId, doc, changed);
    }
    if (input.isArchived === true && !doc.isArchived) {
      const ids = await archiveSubtree(tx, doc);
      doc = await stateOf(tx, id);
      await emitArchived(tx, actor.userId, doc, ids);
    }
  });
}

/** The one-statement edit: the fields change and document.updated is written, or nothing happens. */
async function updateFields(
  ctx: DocumentContext,
  actor: Actor,
  id: string,
  patch: DocumentPatch,
  template: EventEnvelope,
): Promise<DocumentDetail> {
  const result = await ctx.prepared.updateFields(id, actor.userId, patch, template);
  if (result.outcome === 'missing') throw notFound('Document');
  if (result.outcome === 'archived') throw archivedConflict('editing');
  ctx.wakeRelay();
  return result.document;
}
