// Every TanStack Query key of the app, and the reads they name: one place, so that a mutation
// invalidates exactly what it changed. Keys are arrays from the general to the particular, so
// invalidating a prefix (e.g. documentKeys.all) reaches everything below it.
import type { ApiClient } from './client';
import type { ArchivedDocument, DocumentBreadcrumb, DocumentListItem, DocumentTreeNode } from './types';

export const documentKeys = {
  /** Everything about documents a signed-in person reads (tree, lists, details). */
  all: ['documents'] as const,
  ancestors: (id: string) => ['documents', 'ancestors', id] as const,
  /** The sidebar's lists: the root documents (parentId null) or a document's children. */
  list: (workspaceId: string, parentId: string | null) =>
    ['documents', 'list', workspaceId, parentId ?? 'root'] as const,
  archived: (workspaceId: string) => ['documents', 'archived', workspaceId] as const,
  tree: (workspaceId: string) => ['documents', 'tree', workspaceId] as const,
};

/** The root documents of a workspace, or the visible children of `parentId`, in sibling order. */
export const documentListQuery = (api: ApiClient, workspaceId: string, parentId: string | null) => ({
  queryKey: documentKeys.list(workspaceId, parentId),
  queryFn: ({ signal }: { signal: AbortSignal }) =>
    parentId === null
      ? api.get<DocumentListItem[]>('/documents', { query: { workspaceId }, signal })
      : api.get<DocumentListItem[]>(`/documents/${parentId}/children`, { signal }),
});

export const archivedDocumentsQuery = (api: ApiClient, workspaceId: string) => ({
  queryKey: documentKeys.archived(workspaceId),
  queryFn: ({ signal }: { signal: AbortSignal }) =>
    api.get<ArchivedDocument[]>('/documents/archived', { query: { workspaceId }, signal }),
});

/** The whole visible tree in one answer (the "Move to…" picker). */
export const documentTreeQuery = (api: ApiClient, workspaceId: string) => ({
  queryKey: documentKeys.tree(workspaceId),
  queryFn: ({ signal }: { signal: AbortSignal }) =>
    api.get<DocumentTreeNode[]>('/documents/tree', { query: { workspaceId }, signal }),
});

export const ancestorsQuery = (api: ApiClient, id: string) => ({
  queryKey: documentKeys.ancestors(id),
  queryFn: ({ signal }: { signal: AbortSignal }) =>
    api.get<DocumentBreadcrumb[]>(`/documents/${id}/ancestors`, { signal }),
});
