import { deriveText } from '@wiki/blocks';
import { sql, z } from '@wiki/db';
import { createEnvelope } from '@wiki/events';
import { invalidField, notFound } from '@wiki/http';
import type { Actor, DocumentContext } from '../context.js';
import type { DocumentDetail } from '../db/documents.js';
import type { FieldsEdit } from '../db/field-edits.js';
import { parseContent } from '../domain/content.js';
import { archivedConflict, requireDocumentRole } from './access.js';
import { editInTx, requireRevision, type WriteOptions } from './update-document.js';

const Current = z.object({ content: z.string(), isArchived: z.boolean(), revision: z.number() });

/**
 * POST /documents/{id}/append (ARCHITECTURE 5.16): `blocks` (a JSON array as a string, checked as
 * content is) go after the content as it is stored NOW, so a writer who never read the document
 * (an assistant's append) cannot overwrite what others wrote meanwhile. The row is locked, its
 * content read, joined with the blocks and written back through the edit rule (field-edits.ts) in
 * one transaction: two appends at once both land, one after the other. Needs EDITOR; an archived
 * document is a 409, the whole content over 2 MiB a 413, an empty array a 400.
 */
export async function appendToDocument(
  ctx: DocumentContext,
  actor: Actor,
  id: string,
  blocks: string,
  options: WriteOptions = {},
): Promise<DocumentDetail> {
  const workspaceId = await requireDocumentRole(ctx, id, actor.userId, 'EDITOR', actor.requestId);
  const appended = parseContent(blocks);
  if (appended.blocks.length === 0) throw invalidField('content', 'must hold at least one block');
  await ctx.users.remember(actor);

  return ctx.pool.transaction(async (tx) => {
    const current = await tx.maybeOne(sql.type(Current)`
      SELECT content, is_archived AS "isArchived", revision FROM documents WHERE id = ${id} FOR UPDATE`);
    if (!current) throw notFound('Document');
    if (current.isArchived) throw archivedConflict('editing');
    if (options.expectedRevision !== undefined) requireRevision(current.revision, options.expectedRevision);
    // The whole is checked as any content is (its size above all).
    const content = parseContent([...parseContent(current.content).blocks, ...appended.blocks]);
    const edit: FieldsEdit = {
      id,
      actorId: actor.userId,
      fields: { content: { json: content.json, ...deriveText(content.blocks) } },
      template: createEnvelope({
        type: 'document.updated',
        actorId: actor.userId,
        workspaceId,
        data: { changed: ['content'] },
      }),
      source: options.source,
    };
    return editInTx(tx, edit);
  });
}
