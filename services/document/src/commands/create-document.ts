import { randomUUID } from 'node:crypto';
import { deriveText } from '@wiki/blocks';
import { invalidField } from '@wiki/http';
import type { Actor, DocumentContext } from '../context.js';
import { type DocumentDetail, type DocumentState, findState } from '../db/documents.js';
import { emptyContent, parseContent } from '../domain/content.js';
import { checkCoverImageUrl } from '../domain/cover-image.js';
import { createdEnvelope } from '../events/producers.js';

export interface CreateInput {
  workspaceId: string;
  parentId?: string | null;
  title?: string;
  content?: unknown;
  icon?: string | null;
  coverImageUrl?: string | null;
}

export const DEFAULT_TITLE = 'Untitled';

/**
 * Creates a document as the last child of its parent (or the last root) and answers it as a GET of
 * it would. Needs EDITOR.
 */
export async function createDocument(ctx: DocumentContext, actor: Actor, input: CreateInput): Promise<DocumentDetail> {
  await ctx.membership.requireRole(input.workspaceId, actor.userId, 'EDITOR', 'Workspace', actor.requestId);
  const content = input.content === undefined || input.content === null ? emptyContent() : parseContent(input.content);
  checkCoverImageUrl(input.coverImageUrl);
  const text = deriveText(content.blocks);
  const parentId = input.parentId ?? null;
  // Before the insert: its answer reads the creator's name from the users projection, as a GET does.
  await ctx.users.remember(actor);

  const title = input.title ?? DEFAULT_TITLE;
  const icon = input.icon ?? null;
  const coverImageUrl = input.coverImageUrl ?? null;

  const id = randomUUID();
  const state: DocumentState = {
    id,
    workspaceId: input.workspaceId,
    createdBy: actor.userId,
    parentId,
    title,
    icon,
    plainText: text.plainText,
    isTemplate: false,
    isArchived: false,
    archiveRootId: null,
    isPublished: false,
    revision: 1,
    updatedAt: '', // stamped by the database, in the row and in the event
  };
  const inserted = await ctx.insertDocument({
    doc: {
      id,
      workspaceId: input.workspaceId,
      parentId,
      title,
      content: content.json,
      ...text,
      icon,
      coverImageUrl,
      userId: actor.userId,
    },
    envelope: createdEnvelope(actor.userId, state),
  });
  if (!inserted) {
    // Only a parent that did not qualify stops the insert; say which way. Whether it does not
    // exist or lives in another workspace: the same answer, nothing leaks.
    const parent = parentId ? await findState(ctx.pool, parentId) : null;
    if (parent && parent.workspaceId === input.workspaceId && parent.isArchived)
      throw invalidField('parentId', 'is archived: restore it before adding documents under it');
    throw invalidField('parentId', 'must be a document of the same workspace');
  }
  return inserted;
}
