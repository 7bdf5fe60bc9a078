// Every TanStack Query key of the app, and the reads they name: one place, so that a mutation
// invalidates exactly what it changed. Keys are arrays from the general to the particular, so
// invalidating a prefix (e.g. documentKeys.all) reaches everything below it.
import { infiniteQueryOptions } from '@tanstack/react-query';
import type { ApiClient } from './client';
import type {
  AppNotification,
  ArchivedDocument,
  Attachment,
  CommentThread,
  DocumentBreadcrumb,
  DocumentListItem,
  DocumentPermission,
  DocumentTreeNode,
  ImportTerms,
  Job,
  McpKey,
  MemberMatch,
  NotificationType,
  Page,
  PublicDocument,
  PublicDocumentListItem,
  Revision,
  RevisionDiff,
  RevisionSummary,
  SearchResult,
  User,
  WatchState,
  Webhook,
  WebhookDelivery,
  WikiDocument,
  Workspace,
  WorkspaceInvitation,
  WorkspaceMember,
} from './types';

export const userKeys = {
  me: ['users', 'me'] as const,
};

export const workspaceKeys = {
  all: ['workspaces'] as const,
  list: ['workspaces', 'list'] as const,
  detail: (id: string) => ['workspaces', 'detail', id] as const,
};

export const documentKeys = {
  /** Everything about documents a signed-in person reads (tree, lists, details). */
  all: ['documents'] as const,
  detail: (id: string) => ['documents', 'detail', id] as const,
  permission: (id: string) => ['documents', 'permission', id] as const,
  /** Whether the signed-in person watches the document (ARCHITECTURE 5.18). */
  watch: (id: string) => ['documents', 'watch', id] as const,
  ancestors: (id: string) => ['documents', 'ancestors', id] as const,
  /** The sidebar's lists: the root documents (parentId null) or a document's children. */
  list: (workspaceId: string, parentId: string | null) =>
    ['documents', 'list', workspaceId, parentId ?? 'root'] as const,
  archived: (workspaceId: string) => ['documents', 'archived', workspaceId] as const,
  tree: (workspaceId: string) => ['documents', 'tree', workspaceId] as const,
};

export const searchKeys = {
  all: ['search'] as const,
  results: (workspaceId: string, query: string) => ['search', workspaceId, query] as const,
};

/** A document's history (ARCHITECTURE 5.16): every key starts with `all(documentId)`. */
export const revisionKeys = {
  all: (documentId: string) => ['revisions', documentId] as const,
  list: (documentId: string) => ['revisions', documentId, 'list'] as const,
  detail: (documentId: string, revisionId: string) => ['revisions', documentId, 'detail', revisionId] as const,
  diff: (documentId: string, revisionId: string) => ['revisions', documentId, 'diff', revisionId, 'current'] as const,
};

/** A document's attachments (the Attachments panel; uploads from the editor invalidate it). */
export const attachmentKeys = {
  list: (documentId: string) => ['attachments', documentId] as const,
};

/** A document's comment threads (all of them: the panel filters, the editor highlights the open ones). */
export const commentKeys = {
  all: ['comments'] as const,
  threads: (documentId: string) => ['comments', 'threads', documentId] as const,
};

/** A workspace's people: members, (ADMIN+) pending invitations, and look-ups for mentions by what was typed after `@`. */
export const memberKeys = {
  all: (workspaceId: string) => ['members', workspaceId] as const,
  list: (workspaceId: string) => ['members', workspaceId, 'list'] as const,
  invitations: (workspaceId: string) => ['members', workspaceId, 'invitations'] as const,
  search: (workspaceId: string, q: string) => ['members', workspaceId, 'search', q] as const,
};

export const publicKeys = {
  all: ['public'] as const,
  document: (id: string) => ['public', 'documents', id] as const,
  children: (id: string) => ['public', 'documents', id, 'children'] as const,
  ancestors: (id: string) => ['public', 'documents', id, 'ancestors'] as const,
};

export const meQuery = (api: ApiClient) => ({
  queryKey: userKeys.me,
  queryFn: () => api.get<User>('/users/me'),
  staleTime: 5 * 60_000,
});

export const workspacesQuery = (api: ApiClient) => ({
  queryKey: workspaceKeys.list,
  queryFn: () => api.get<Workspace[]>('/workspaces'),
});

export const workspaceQuery = (api: ApiClient, id: string) => ({
  queryKey: workspaceKeys.detail(id),
  queryFn: () => api.get<Workspace>(`/workspaces/${id}`),
});

export const documentQuery = (api: ApiClient, id: string) => ({
  queryKey: documentKeys.detail(id),
  queryFn: () => api.get<WikiDocument>(`/documents/${id}`),
});

/** Results as the person types: an answer stays good briefly, a newer keystroke cancels the older. */
export const searchQuery = (api: ApiClient, workspaceId: string, query: string) => ({
  queryKey: searchKeys.results(workspaceId, query),
  queryFn: ({ signal }: { signal: AbortSignal }) =>
    api.get<SearchResult[]>('/documents/search', { query: { workspaceId, query, limit: 10 }, signal }),
  staleTime: 5_000,
});

export const permissionQuery = (api: ApiClient, id: string) => ({
  queryKey: documentKeys.permission(id),
  queryFn: () => api.get<DocumentPermission>(`/documents/${id}/permission`),
});

export const watchQuery = (api: ApiClient, id: string) => ({
  queryKey: documentKeys.watch(id),
  queryFn: () => api.get<WatchState>(`/documents/${id}/watch`),
});

export const ancestorsQuery = (api: ApiClient, id: string) => ({
  queryKey: documentKeys.ancestors(id),
  queryFn: () => api.get<DocumentBreadcrumb[]>(`/documents/${id}/ancestors`),
});

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

export const publicDocumentQuery = (api: ApiClient, id: string) => ({
  queryKey: publicKeys.document(id),
  queryFn: () => api.get<PublicDocument>(`/public/documents/${id}`, { anonymous: true }),
});

export const publicChildrenQuery = (api: ApiClient, id: string) => ({
  queryKey: publicKeys.children(id),
  queryFn: () => api.get<PublicDocumentListItem[]>(`/public/documents/${id}/children`, { anonymous: true }),
});

export const publicAncestorsQuery = (api: ApiClient, id: string) => ({
  queryKey: publicKeys.ancestors(id),
  queryFn: () => api.get<PublicDocumentListItem[]>(`/public/documents/${id}/ancestors`, { anonymous: true }),
});

/** Revisions a page at a time, newest first ("Load more" asks for the next page). */
export const REVISIONS_PAGE_SIZE = 20;

export const revisionsQuery = (api: ApiClient, documentId: string) =>
  infiniteQueryOptions({
    queryKey: revisionKeys.list(documentId),
    queryFn: ({ pageParam }) =>
      api.get<Page<RevisionSummary>>(`/documents/${documentId}/revisions`, {
        query: { page: pageParam, size: REVISIONS_PAGE_SIZE },
      }),
    initialPageParam: 0,
    getNextPageParam: (last: Page<RevisionSummary>) =>
      last.number + 1 < last.totalPages ? last.number + 1 : undefined,
  });

/** A revision's state; it never changes, so it is kept as long as it is in use. */
export const revisionQuery = (api: ApiClient, documentId: string, revisionId: string) => ({
  queryKey: revisionKeys.detail(documentId, revisionId),
  queryFn: () => api.get<Revision>(`/documents/${documentId}/revisions/${revisionId}`),
  staleTime: Number.POSITIVE_INFINITY,
});

/** What changed from a revision to the current text: read afresh each time, the text moves on. */
export const revisionDiffQuery = (api: ApiClient, documentId: string, revisionId: string) => ({
  queryKey: revisionKeys.diff(documentId, revisionId),
  queryFn: () =>
    api.get<RevisionDiff>(`/documents/${documentId}/revisions/${revisionId}/diff`, { query: { against: 'current' } }),
  staleTime: 0,
});

export const attachmentsQuery = (api: ApiClient, documentId: string) => ({
  queryKey: attachmentKeys.list(documentId),
  queryFn: ({ signal }: { signal: AbortSignal }) =>
    api.get<Attachment[]>(`/attachments/document/${documentId}`, { signal }),
});

export const invitationKeys = {
  /** The public preview of an invitation, by its token. */
  info: (token: string) => ['invitations', 'info', token] as const,
};

export const mcpKeyKeys = {
  list: ['users', 'me', 'mcp-keys'] as const,
};

export const membersQuery = (api: ApiClient, workspaceId: string) => ({
  queryKey: memberKeys.list(workspaceId),
  queryFn: () => api.get<WorkspaceMember[]>(`/workspaces/${workspaceId}/members`),
});

export const invitationsQuery = (api: ApiClient, workspaceId: string) => ({
  queryKey: memberKeys.invitations(workspaceId),
  queryFn: () => api.get<WorkspaceInvitation[]>(`/workspaces/${workspaceId}/invitations`),
});

export const invitationInfoQuery = (api: ApiClient, token: string) => ({
  queryKey: invitationKeys.info(token),
  queryFn: () => api.get<WorkspaceInvitation>(`/invitations/${encodeURIComponent(token)}/info`, { anonymous: true }),
});

export const mcpKeysQuery = (api: ApiClient) => ({
  queryKey: mcpKeyKeys.list,
  queryFn: () => api.get<McpKey[]>('/users/me/mcp-keys'),
});

export const threadsQuery = (api: ApiClient, documentId: string) => ({
  queryKey: commentKeys.threads(documentId),
  queryFn: () => api.get<CommentThread[]>(`/comments/documents/${documentId}/threads`, { query: { status: 'all' } }),
});

/** Members matching `q`; the same few letters typed again within a minute are not asked again. */
export const memberSearchQuery = (api: ApiClient, workspaceId: string, q: string) => ({
  queryKey: memberKeys.search(workspaceId, q),
  queryFn: () => api.get<MemberMatch[]>(`/workspaces/${workspaceId}/members/search`, { query: { q } }),
  staleTime: 60_000,
});

/** The signed-in person's notifications: the unread count and the lists (all, or of one type). */
export const notificationKeys = {
  all: ['notifications'] as const,
  count: ['notifications', 'count'] as const,
  lists: ['notifications', 'list'] as const,
  list: (type: NotificationType | null) => ['notifications', 'list', type ?? 'all'] as const,
};

export const unreadCountQuery = (api: ApiClient) => ({
  queryKey: notificationKeys.count,
  queryFn: () => api.get<{ unreadCount: number }>('/notifications/count'),
});

export const NOTIFICATIONS_PAGE_SIZE = 20;

/** Newest first, a page at a time ("Load more"); one type's through GET /notifications/type/{type}. */
export const notificationsQuery = (api: ApiClient, type: NotificationType | null) =>
  infiniteQueryOptions({
    queryKey: notificationKeys.list(type),
    queryFn: ({ pageParam, signal }) =>
      api.get<Page<AppNotification>>(type ? `/notifications/type/${type}` : '/notifications', {
        query: { page: pageParam, size: NOTIFICATIONS_PAGE_SIZE },
        signal,
      }),
    initialPageParam: 0,
    getNextPageParam: (last: Page<AppNotification>) =>
      last.number + 1 < last.totalPages ? last.number + 1 : undefined,
  });

/** A workspace's webhooks (ADMIN and OWNER) and each one's latest deliveries. */
export const webhookKeys = {
  list: (workspaceId: string) => ['webhooks', workspaceId, 'list'] as const,
  deliveries: (webhookId: string) => ['webhooks', 'deliveries', webhookId] as const,
};

export const webhooksQuery = (api: ApiClient, workspaceId: string) => ({
  queryKey: webhookKeys.list(workspaceId),
  queryFn: () => api.get<Webhook[]>(`/workspaces/${workspaceId}/webhooks`),
});

/** The newest deliveries shown under a webhook; older ones stay in the API's pages. */
export const WEBHOOK_DELIVERIES_SHOWN = 20;

export const webhookDeliveriesQuery = (api: ApiClient, webhookId: string) => ({
  queryKey: webhookKeys.deliveries(webhookId),
  queryFn: () =>
    api.get<Page<WebhookDelivery>>(`/webhooks/${webhookId}/deliveries`, {
      query: { page: 0, size: WEBHOOK_DELIVERIES_SHOWN },
    }),
});

/** Jobs (ARCHITECTURE 5.19) by id; a JOB_FINISHED notification refreshes its job at once. */
export const jobKeys = {
  detail: (id: string) => ['jobs', id] as const,
  importTerms: ['jobs', 'import-terms'] as const,
};

/** What an import takes on this server (its size limit is configured there); it does not change while the app runs. */
export const importTermsQuery = (api: ApiClient) => ({
  queryKey: jobKeys.importTerms,
  queryFn: ({ signal }: { signal: AbortSignal }) => api.get<ImportTerms>('/documents/import', { signal }),
  staleTime: Number.POSITIVE_INFINITY,
});

/** How long to wait before asking about an unfinished job again: 1 s for ten answers, then slower, up to 5 s. */
export function jobPollDelay(answers: number): number {
  return answers <= 10 ? 1_000 : Math.min(5_000, Math.round(1_000 * 1.25 ** (answers - 10)));
}

export const isFinished = (job: Job | undefined) => job?.status === 'done' || job?.status === 'failed';

/** A job, asked for again until it is done or failed (not while the tab is hidden). */
export const jobQuery = (api: ApiClient, id: string) => ({
  queryKey: jobKeys.detail(id),
  queryFn: ({ signal }: { signal: AbortSignal }) => api.get<Job>(`/jobs/${id}`, { signal }),
  refetchInterval: (query: { state: { data: Job | undefined; dataUpdateCount: number } }) =>
    isFinished(query.state.data) ? false : jobPollDelay(query.state.dataUpdateCount),
});
