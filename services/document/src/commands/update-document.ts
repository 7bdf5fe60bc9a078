import { notFound } from '@wiki/http';
import type { Actor, DocumentContext } from '../context.js';
import { bumpContentRevision } from '../db/collab-states.js';
import {
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
import { requireDocumentRole, requireNotArchived } from './access.js';
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
 * PUT /documents/{id}: changes the given fields (the others stay) and, with isArchived, archives
 * or restores the document with its subtree. Needs EDITOR. Sends document.updated when a field
 * was given, document.archived/restored when the flag changed. `content: null` is an empty
 * document, as on create.
 *
 * An archived document is read-only until restored: a body with isArchived false restores it
 * first and then applies its other fields; any field change without it is a 409 and changes
 * nothing. The check reads the row under its lock, so it cannot race an archiving.
 */
export async function updateDocument(
  ctx: DocumentContext,
  actor: Actor,
  id: string,
  input: UpdateInput,
): Promise<void> {
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
