import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Actor } from '@wiki/auth';
import { newEvent, publishInTx } from '@wiki/events';
import { AppError, badRequest, notFound, refusal } from '@wiki/http';
import { imageSize } from 'image-size';
import type { AttachmentContext } from '../context.js';
import {
  type AttachmentRow,
  deleteById,
  findById,
  findByKey,
  insertAttachment,
  listByDocument,
} from '../db/attachments.js';
import { displayName, isWellFormedKey, storageKeyOf } from '../domain/file-name.js';
import { SNIFF_BYTES, sniffMime } from '../domain/sniff.js';
import { CLEANED_TYPES } from './clean-image.js';
import { documentOf, workspaceOpen } from './documents.js';
import { type SpooledFile, spool } from './spool.js';

/** What the upload form gave: the ids as sent (checked here) and the file's stream, read once. */
export interface UploadForm {
  workspaceId?: string;
  documentId?: string;
  /** An import's upload (internal route): who imports, the import, and a name for the file. */
  userId?: string;
  importId?: string;
  fileName?: string;
  file?: { stream: Readable; fileName: string; truncated: () => boolean };
}

/**
 * Who uploads: a signed-in user (the public route), or an import job of the export service on
 * behalf of the form's `userId` (the internal route), whose document may not exist yet.
 */
export type Uploader = { kind: 'user'; actor: Actor } | { kind: 'import'; requestId?: string };

interface UploadIds {
  workspaceId: string;
  documentId: string;
  actor: Actor;
  importId: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The form's ids, checked: what the uploader needs present and well-formed. */
function checkIds(form: UploadForm, uploader: Uploader): UploadIds {
  const details = [];
  const required = uploader.kind === 'import' ? (['workspaceId', 'documentId', 'userId'] as const) : IDS;
  for (const field of [...required, ...(uploader.kind === 'import' ? (['importId'] as const) : [])]) {
    const value = form[field];
    if (value === undefined) {
      if (field !== 'importId') details.push({ field, message: 'is required' });
    } else if (!UUID.test(value)) details.push({ field, message: 'must be a valid uuid' });
  }
  if (details.length) throw badRequest(details.map((d) => `${d.field} ${d.message}`).join('; '), details);
  const actor =
    uploader.kind === 'user'
      ? uploader.actor
      : { userId: (form.userId as string).toLowerCase(), requestId: uploader.requestId };
  return {
    workspaceId: (form.workspaceId as string).toLowerCase(),
    documentId: (form.documentId as string).toLowerCase(),
    actor,
    importId: uploader.kind === 'import' ? (form.importId?.toLowerCase() ?? null) : null,
  };
}

const IDS = ['workspaceId', 'documentId'] as const;

/** Whether the form holds every id the uploader's check needs, so that it can run before the file is read. */
const hasIds = (form: UploadForm, uploader: Uploader) =>
  form.workspaceId !== undefined &&
  form.documentId !== undefined &&
  (uploader.kind === 'user' || form.userId !== undefined);

/**
 * EDITOR or above in the workspace, and the document in that workspace (else 404 for it) and not
 * archived (409: an archived document takes no new files until it is restored).
 */
async function authorizeUpload(ctx: AttachmentContext, ids: UploadIds, uploader: Uploader) {
  const { actor, workspaceId, documentId } = ids;
  await ctx.membership.requireRole(workspaceId, actor.userId, 'EDITOR', 'Workspace', actor.requestId);
  const doc = await documentOf(ctx, documentId, actor.requestId);
  // An import stores its images before it makes their documents (with the ids it chose): a
  // document that does not exist yet is its to make; one that does must be as for any upload.
  if (!doc && uploader.kind === 'import') return;
  if (!doc || doc.workspaceId !== workspaceId) throw notFound('Document');
  if (doc.isArchived)
    throw refusal('DOCUMENT_ARCHIVED', 'The document is archived: restore it before adding files to it');
}

function dimensions(mime: string, head: Buffer): { width: number | null; height: number | null } {
  if (!mime.startsWith('image/')) return { width: null, height: null };
  try {
    const { width, height } = imageSize(head);
    return Number.isInteger(width) && Number.isInteger(height) ? { width, height } : { width: null, height: null };
  } catch {
    // Not measurable from its first bytes (a corrupt image, or one whose size sits further in).
    return { width: null, height: null };
  }
}

/**
 * POST /attachments/upload (spec 4.7): the file is spooled as it arrives (see spool), its type
 * read from its bytes, a JPEG, PNG or WebP re-encoded without its metadata and upright (see
 * clean-image), stored under a key of its own, then recorded with attachment.uploaded in one
 * transaction. `readForm` reads the multipart body and calls `onFile` for the file part, with the
 * ids when they came before it (so that a caller without the right is refused before their
 * bytes are written anywhere).
 */
export async function upload(
  ctx: AttachmentContext,
  uploader: Uploader,
  readForm: (onFile: (form: UploadForm) => Promise<void>) => Promise<UploadForm>,
): Promise<AttachmentRow> {
  // Set inside the form reader's callback: an object, so that the compiler sees the writes.
  const state: { spooled?: SpooledFile; cleaned?: SpooledFile; authorized?: boolean } = {};
  try {
    const form = await readForm(async (partial) => {
      if (hasIds(partial, uploader)) {
        await authorizeUpload(ctx, checkIds(partial, uploader), uploader);
        state.authorized = true;
      }
      const file = partial.file as NonNullable<UploadForm['file']>;
      state.spooled = await spool(file.stream, ctx.spoolDir);
      if (file.truncated()) {
        throw new AppError('PAYLOAD_TOO_LARGE', `The file is too large (at most ${ctx.uploadMaxBytes} bytes)`);
      }
    });
    const ids = checkIds(form, uploader);
    const { actor } = ids;
    const spooled = state.spooled;
    if (!form.file || !spooled) throw badRequest('file is required', [{ field: 'file', message: 'is required' }]);
    if (spooled.size === 0)
      throw badRequest('file must not be empty', [{ field: 'file', message: 'must not be empty' }]);
    const mimeType = sniffMime(spooled.head.subarray(0, SNIFF_BYTES), spooled.size);
    const cleaning = ctx.images !== undefined && CLEANED_TYPES.has(mimeType);
    // Before the image is worked on: a caller who may not upload here costs no re-encoding.
    if (cleaning && !state.authorized) await authorizeUpload(ctx, ids, uploader);
    const cleaned = cleaning ? await ctx.images?.clean(spooled, mimeType, ctx.spoolDir) : undefined;
    state.cleaned = cleaned?.file;
    const stored = cleaned?.file ?? spooled;
    // Asked (again) right before storing, however early the ids came: the document may have been
    // archived or deleted while the bytes arrived or the image was cleaned (a deletion that lands
    // after this is caught by its tombstone in insertAttachment).
    await authorizeUpload(ctx, ids, uploader);

    const id = randomUUID();
    const fileName = displayName(form.fileName ?? form.file.fileName);
    const { width, height } = cleaned ?? dimensions(mimeType, stored.head);
    const storageKey = storageKeyOf(ids.workspaceId, ids.documentId, id, fileName);
    await ctx.storage.putFile(storageKey, stored.path, stored.size, mimeType);

    let row: AttachmentRow | null;
    try {
      row = await ctx.pool.transaction(async (tx) => {
        const inserted = await insertAttachment(tx, {
          id,
          workspaceId: ids.workspaceId,
          documentId: ids.documentId,
          storageKey,
          fileName,
          fileSize: stored.size,
          mimeType,
          width,
          height,
          sha256: stored.sha256,
          uploadedBy: actor.userId,
          importId: ids.importId,
        });
        if (inserted) {
          await publishInTx(
            tx,
            newEvent('attachment.uploaded', {
              actorId: actor.userId,
              workspaceId: ids.workspaceId,
              data: { id, documentId: ids.documentId, workspaceId: ids.workspaceId, storageKey },
            }),
          );
        }
        return inserted;
      });
    } catch (error) {
      await removeObject(ctx, storageKey);
      throw error;
    }
    if (!row) {
      // The document or its workspace was deleted while the file arrived.
      await removeObject(ctx, storageKey);
      throw notFound('Document');
    }
    return row;
  } finally {
    await state.spooled?.discard();
    await state.cleaned?.discard();
  }
}

/** Removes an object whose record is gone; a failure is left to the orphan sweep. */
export async function removeObject(ctx: Pick<AttachmentContext, 'storage' | 'logger'>, key: string): Promise<void> {
  try {
    await ctx.storage.delete(key);
  } catch (error) {
    ctx.logger.warn({ key, err: (error as Error).message }, 'object not removed; the orphan sweep will');
  }
}

/** GET /attachments/document/{documentId}: VIEWER or above in the document's workspace. */
export async function listForDocument(
  ctx: AttachmentContext,
  actor: Actor,
  documentId: string,
): Promise<readonly AttachmentRow[]> {
  const doc = await documentOf(ctx, documentId, actor.requestId);
  if (!doc) throw notFound('Document');
  await ctx.membership.requireRole(doc.workspaceId, actor.userId, 'VIEWER', 'Document', actor.requestId);
  return listByDocument(ctx.pool, documentId);
}

/** DELETE /attachments/{id}: EDITOR or above; the record and attachment.deleted first, then the object. */
export async function remove(ctx: AttachmentContext, actor: Actor, id: string): Promise<void> {
  const found = await findById(ctx.pool, id);
  if (!found) throw notFound('Attachment');
  await ctx.membership.requireRole(found.workspaceId, actor.userId, 'EDITOR', 'Attachment', actor.requestId);
  const deleted = await ctx.pool.transaction(async (tx) => {
    const row = await deleteById(tx, id);
    if (row) {
      await publishInTx(
        tx,
        newEvent('attachment.deleted', {
          actorId: actor.userId,
          workspaceId: row.workspaceId,
          data: { id: row.id, documentId: row.documentId, workspaceId: row.workspaceId, storageKey: row.storageKey },
        }),
      );
    }
    return row;
  });
  if (!deleted) throw notFound('Attachment');
  await removeObject(ctx, deleted.storageKey);
}

/**
 * GET /attachments/file: the record a key belongs to, when the caller may read it: a member of
 * its workspace, or anyone while its document is published, not archived, in an open workspace.
 * Every refusal is the same 404, so a key says nothing about whether it exists.
 */
export async function readableFile(
  ctx: AttachmentContext,
  userId: string | null,
  key: string,
  requestId: string,
): Promise<AttachmentRow> {
  if (!isWellFormedKey(key)) throw notFound('File');
  const row = await findByKey(ctx.pool, key);
  if (!row) throw notFound('File');
  if (userId && (await ctx.membership.roleOf(row.workspaceId, userId, requestId))) return row;
  const doc = await documentOf(ctx, row.documentId, requestId);
  if (doc?.isPublished && !doc.isArchived && (await workspaceOpen(ctx, row.workspaceId))) return row;
  throw notFound('File');
}
