import { notFound } from '@wiki/http';
import type { DocumentContext } from '../context.js';
import { ancestorsOf } from '../db/documents.js';
import {
  findPublicDocument,
  isPublicDocument,
  listPublicChildren,
  type PublicDocumentRow,
  type PublicListRow,
} from '../db/public-documents.js';
import { publicAncestors as publicChain } from '../domain/public-view.js';

/**
 * Reads without authentication (spec 4.5, ARCHITECTURE 5.7): only documents that are published
 * and not archived; anything else is a 404 that says nothing about whether it exists.
 */

export async function getPublicDocument(ctx: DocumentContext, id: string): Promise<PublicDocumentRow> {
  const doc = await findPublicDocument(ctx.pool, id);
  if (!doc) throw notFound('Document');
  return doc;
}

export async function publicChildren(ctx: DocumentContext, id: string): Promise<readonly PublicListRow[]> {
  const [isPublic, children] = await Promise.all([isPublicDocument(ctx.pool, id), listPublicChildren(ctx.pool, id)]);
  if (!isPublic) throw notFound('Document');
  return children;
}

/** The unbroken chain of public documents directly above it, from the top, ending with it. */
export async function publicAncestors(ctx: DocumentContext, id: string): Promise<PublicListRow[]> {
  const [isPublic, ancestors] = await Promise.all([isPublicDocument(ctx.pool, id), ancestorsOf(ctx.pool, id)]);
  const chain = isPublic ? publicChain(ancestors) : [];
  if (chain.length === 0) throw notFound('Document');
  return chain.map((link, i) => ({
    id: link.id,
    title: link.title,
    icon: link.icon,
    // The top of the chain has no public parent: its parent (if any) is not shown.
    parentId: i === 0 ? null : chain[i - 1].id,
    childCount: link.publicChildCount,
  }));
}
