import { deriveText } from '@wiki/blocks';
import { createEnvelope } from '@wiki/events';
import type { Actor, DocumentContext } from '../context.js';
import type { DocumentDetail } from '../db/documents.js';
import type { FieldsUpdate } from '../db/field-edits.js';
import { type CurrentState, currentState, findRevision, type RevisionRow } from '../db/revisions.js';
import { parseContent } from '../domain/content.js';
import type { DocumentChange } from '../events/producers.js';
import { getDocument } from '../queries/read-documents.js';
import { archivedConflict, requireDocumentRole } from './access.js';
import { throwDocumentNotFound, throwRevisionNotFound } from './revisions.js';
import { editInTx } from './update-document.js';

/**
 * POST /revisions/{revisionId}/restore: the revision's title, content, icon and cover become the
 * document's, through the edit rule of PUT (db/field-edits.ts) with source RESTORE, so the
 * revision, its history row, document.updated (search, collab rooms) follow as for any edit. Only
 * the fields that differ are written; when none does, nothing changes and the document is answered
 * as it is. The document's row is locked while the fields are compared and written, so an edit
 * cannot slip in between. An archived document is a 409.
 */
export async function restoreRevision(
  ctx: DocumentContext,
  actor: Actor,
  documentId: string,
  revisionId: string,
): Promise<DocumentDetail> {
  const workspaceId = await requireDocumentRole(ctx, documentId, actor.userId, 'EDITOR', actor.requestId);
  await ctx.users.remember(actor);
  const restored = await ctx.pool.transaction(async (tx) => {
    const doc = (await currentState(tx, documentId, 'update')) ?? throwDocumentNotFound();
    if (doc.isArchived) throw archivedConflict('restoring a revision of');
    const revision = (await findRevision(tx, documentId, revisionId)) ?? throwRevisionNotFound();
    const { fields, changed } = differingFields(doc, revision);
    if (changed.length === 0) return null;
    return editInTx(tx, {
      id: documentId,
      actorId: actor.userId,
      fields,
      source: 'RESTORE',
      template: createEnvelope({ type: 'document.updated', actorId: actor.userId, workspaceId, data: { changed } }),
    });
  });
  return restored ?? getDocument(ctx, actor, documentId);
}

/** The fields of the revision that differ from the document's, as the edit statement takes them. */
function differingFields(
  doc: CurrentState,
  revision: RevisionRow,
): { fields: FieldsUpdate; changed: DocumentChange[] } {
  const fields: FieldsUpdate = {};
  const changed: DocumentChange[] = [];
  if (revision.title !== doc.title) {
    fields.title = revision.title;
    changed.push('title');
  }
  if (revision.content !== doc.content) {
    const content = parseContent(revision.content);
    fields.content = { json: content.json, ...deriveText(content.blocks) };
    changed.push('content');
  }
  if (revision.icon !== doc.icon) {
    fields.icon = revision.icon;
    changed.push('icon');
  }
  if (revision.coverImageUrl !== doc.coverImageUrl) {
    fields.coverImageUrl = revision.coverImageUrl;
    changed.push('coverImageUrl');
  }
  return { fields, changed };
}
