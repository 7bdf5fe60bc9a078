import { sql, z } from '@wiki/db';
import { workspaceIsOpen } from '@wiki/projections';
import type { AttachmentContext } from '../context.js';

const documentState = z.object({
  id: z.string(),
  workspaceId: z.string(),
  isArchived: z.boolean(),
  isPublished: z.boolean(),
});
export type DocumentState = z.infer<typeof documentState>;

/**
 * The document as its owner, the document service, knows it now (its internal route; null when
 * it does not exist). Asked on every use rather than kept from events: publishing, archiving and
 * deleting must take effect at once for the files too.
 */
export function documentOf(
  ctx: Pick<AttachmentContext, 'peers'>,
  id: string,
  requestId?: string,
): Promise<DocumentState | null> {
  return ctx.peers.get('document', `/internal/documents/${id}`, { requestId, parse: (d) => documentState.parse(d) });
}

/** Whether this service's membership projection knows the workspace to be neither archived nor deleted. */
export async function workspaceOpen(ctx: AttachmentContext, workspaceId: string): Promise<boolean> {
  return ctx.pool.oneFirst(sql.type(z.object({ open: z.boolean() }))`
    SELECT ${workspaceIsOpen('asked.id')} AS open FROM (SELECT ${workspaceId}::uuid AS id) asked`);
}
