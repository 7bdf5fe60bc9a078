import { atLeast, type Role } from '@wiki/auth';
import { deriveText, fromPlainText } from '@wiki/blocks';
import { forbidden, notFound, refusal } from '@wiki/http';
import type { DocumentContext } from '../context.js';
import {
  collabContentOf,
  contentRevisionOf,
  loadCollabState,
  type StoredCollabState,
  saveCollabState,
} from '../db/collab-states.js';
import { type DocumentPatch, findState, updateDocument } from '../db/documents.js';
import { parseContent } from '../domain/content.js';
import { type DocumentChange, emitUpdated } from '../events/producers.js';
import { requireNotArchived } from './access.js';

/** The internal API of the collaboration server (spec 4.10, ARCHITECTURE 5.11). */

export interface Permission {
  canEdit: boolean;
  role: Role;
  workspaceId: string;
}

/**
 * The role of a user (local id or identity-provider uid) on a document's workspace. canEdit is
 * EDITOR or higher on a document that is not archived. 404 for an unknown document, 403 for a
 * user who is unknown or not a member (the collab server must refuse the connection).
 */
export async function permissionOf(
  ctx: DocumentContext,
  documentId: string,
  userIdOrIdpUid: string,
  requestId?: string,
): Promise<Permission> {
  const doc = await findState(ctx.pool, documentId);
  if (!doc) throw notFound('Document');
  const user = await ctx.users.resolve(userIdOrIdpUid, requestId);
  if (!user) throw forbidden("The user is not a member of the document's workspace");
  const role = await ctx.membership.roleOf(doc.workspaceId, user.id, requestId);
  if (!role) throw forbidden("The user is not a member of the document's workspace");
  return { canEdit: atLeast(role, 'EDITOR') && !doc.isArchived, role, workspaceId: doc.workspaceId };
}

/**
 * The stored state, byte for byte, with the document's content revision; state null when none was
 * ever saved or a REST/MCP write came after it (the collab server then rebuilds the room from the
 * content). 404 for an unknown document.
 */
export async function collabState(ctx: DocumentContext, documentId: string): Promise<StoredCollabState> {
  const stored = await loadCollabState(ctx.pool, documentId);
  if (!stored) throw notFound('Document');
  return stored;
}

/** The block content (JSON string) and its content revision: what a rebuilt room starts from. */
export async function collabContent(
  ctx: DocumentContext,
  documentId: string,
): Promise<{ content: string; contentRevision: number }> {
  const found = await collabContentOf(ctx.pool, documentId);
  if (!found) throw notFound('Document');
  return found;
}

export interface CollabSave {
  state: Buffer;
  plainText?: string;
  jsonContent?: string;
  idpUid?: string;
  /** The identity-provider uids of everyone who edited since the last save (at most 50): the revision's authors. */
  editorIdpUids?: string[];
  /**
   * The content revision the state was built on. When given and the document has moved on (a REST
   * or MCP write since), the save is a 409 and stores nothing: the editor must take that write in first.
   */
  contentRevision?: number;
}

export interface Logger {
  warn(obj: object, msg?: string): void;
}

/**
 * Stores the state. With jsonContent the document's content (and excerpt, word count) is replaced;
 * with plainText that text goes to search in the document.updated event (and, without jsonContent,
 * becomes the stored plain text); with idpUid that user becomes lastEditedBy.
 *
 * An archived document is read-only (canEdit false): its save is a 409 and stores nothing (checked
 * under the row lock). The idpUid lookup (which may ask the workspace service) is best-effort: when
 * it fails, the state and content are saved anyway with lastEditedBy unchanged, since losing the
 * state would lose the edits; an unknown idpUid is skipped the same way.
 */
export async function saveCollab(
  ctx: DocumentContext,
  documentId: string,
  save: CollabSave,
  log: Logger,
  requestId?: string,
): Promise<void> {
  const patch: DocumentPatch = {};
  const changed: DocumentChange[] = [];
  if (save.jsonContent !== undefined) {
    const content = parseContent(save.jsonContent);
    patch.content = { json: content.json, ...deriveText(content.blocks) };
    changed.push('content');
  } else if (save.plainText !== undefined) {
    patch.plainText = fromPlainText(save.plainText);
    changed.push('content');
  }
  let editorId: string | null = null;
  if (save.idpUid) {
    const editor = await ctx.users.resolve(save.idpUid, requestId).catch((error: unknown) => {
      // Not the idpUid itself (a user identifier) nor any credential: the document and the cause.
      log.warn(
        { documentId, err: error },
        'collab save: the last editor could not be looked up; saving without lastEditedBy',
      );
      return null;
    });
    if (editor) {
      editorId = editor.id;
      patch.lastEditedBy = editor.id;
      changed.push('lastEditedBy');
    }
  }
  if (patch.content) {
    patch.editSource = 'COLLAB';
    patch.editAuthors = await authorsOf(ctx, save.editorIdpUids ?? [], editorId, log, documentId, requestId);
  }

  await ctx.pool.transaction(async (tx) => {
    const doc = await findState(tx, documentId, 'update');
    if (!doc) throw notFound('Document');
    requireNotArchived(doc, 'editing');
    if (save.contentRevision !== undefined && save.contentRevision !== (await contentRevisionOf(tx, documentId))) {
      throw refusal('CONTENT_CHANGED', 'The content was changed by another writer since this state was loaded');
    }
    await saveCollabState(tx, documentId, save.state);
    if (changed.length === 0) return;
    const updated = await updateDocument(tx, documentId, patch);
    await emitUpdated(tx, editorId, updated, changed, save.plainText ?? updated.plainText, patch.editAuthors);
  });
}

/**
 * The users whose edits a collab save holds, from the idp uids the collab server sends, in its
 * order, each once; the saver (lastEditedBy) when none is known. Best-effort like the saver's look-up:
 * a uid that cannot be resolved is left out rather than failing the save.
 */
async function authorsOf(
  ctx: DocumentContext,
  idpUids: string[],
  saverId: string | null,
  log: Logger,
  documentId: string,
  requestId?: string,
): Promise<string[] | undefined> {
  const resolved = await Promise.all(
    [...new Set(idpUids)].map((uid) =>
      ctx.users.resolve(uid, requestId).catch((error: unknown) => {
        log.warn({ documentId, err: error }, 'collab save: an editor could not be looked up; left out of the authors');
        return null;
      }),
    ),
  );
  const ids = [...new Set(resolved.flatMap((user) => (user ? [user.id] : [])))];
  if (ids.length > 0) return ids;
  return saverId ? [saverId] : undefined;
}
