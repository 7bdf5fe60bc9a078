// The shapes of the API's answers that the app reads (../shared/spec/wiki-api.md, ARCHITECTURE 5.16).

export type WorkspaceRole = 'OWNER' | 'ADMIN' | 'EDITOR' | 'COMMENTER' | 'VIEWER';

export interface UserSummary {
  id: string;
  name: string;
  avatarUrl: string;
}

export interface Preferences {
  lastDocumentId?: string | null;
  lastWorkspaceId?: string | null;
  theme?: 'light' | 'dark' | 'system';
  sidebarCollapsed?: boolean;
  locale?: string;
  notificationsEnabled?: boolean;
  /** How each notification type is e-mailed; the API answers every type (ARCHITECTURE 5.18). */
  emailNotifications?: Record<NotificationType, EmailMode>;
}

/** off: never e-mailed; instant: one e-mail each; digest: gathered into one e-mail now and then. */
export type EmailMode = 'off' | 'instant' | 'digest';

export interface User {
  id: string;
  email: string;
  name: string;
  avatarUrl: string;
  status: string;
  preference: Preferences;
}

export interface Workspace {
  id: string;
  name: string;
  description: string;
  icon: string;
  color: string;
  ownerId: string;
  isDefault: boolean;
  isArchived: boolean;
  documentCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface DocumentListItem {
  id: string;
  title: string;
  parentId: string | null;
  workspaceId: string;
  icon: string | null;
  hasChildren: boolean;
  childCount: number;
  updatedAt: string;
  /** Open comment threads (the document service's projection of the comment service's events). */
  openCommentCount: number;
}

/** A node of `GET /documents/tree`: the whole visible tree of a workspace, nested. */
export interface DocumentTreeNode {
  id: string;
  title: string;
  parentId: string | null;
  workspaceId: string;
  icon: string | null;
  updatedAt: string;
  children: DocumentTreeNode[];
}

/** An entry of `GET /documents/archived`: a document archived itself, with what went with it. */
export interface ArchivedDocument {
  id: string;
  title: string;
  parentId: string | null;
  workspaceId: string;
  icon: string | null;
  /** How many documents below it were archived with it (restoring brings them back too). */
  descendantCount: number;
  /** When it was archived. */
  updatedAt: string;
}

export interface WikiDocument extends Omit<DocumentListItem, 'hasChildren' | 'childCount' | 'icon'> {
  /** null or empty: no icon. */
  icon: string | null;
  content: string;
  excerpt: string;
  ownerId: string;
  coverImageUrl: string | null;
  isTemplate: boolean;
  isArchived: boolean;
  isPublished: boolean;
  wordCount: number;
  hasChildren: boolean;
  childCount: number;
  openCommentCount: number;
  revision: number;
  createdBy: string;
  lastEditedBy: string;
  createdByUser: UserSummary;
  lastEditedByUser: UserSummary;
  createdAt: string;
}

/** One step of GET /documents/{id}/ancestors: from the root down to the document itself. */
export interface DocumentBreadcrumb {
  id: string;
  title: string;
}

/** GET /documents/{id}/permission: the signed-in person's role and whether they may edit. */
export interface DocumentPermission {
  canEdit: boolean;
  role: WorkspaceRole;
  workspaceId: string;
}

/** GET|PUT|DELETE /documents/{id}/watch: whether the signed-in person is told of others' edits. */
export interface WatchState {
  watching: boolean;
}

export interface SearchResult {
  id: string;
  title: string;
  icon: string;
  parentId: string | null;
  /** Plain text with the matched words inside `<mark>` tags: nothing else of it is HTML. */
  snippet: string;
  matchField: 'title' | 'content' | 'comment' | 'attachment';
  /** With matchField "comment": the thread whose comment matched. */
  commentThreadId?: string;
  /** With matchField "attachment": the file whose text matched. */
  attachmentId?: string;
}

export interface PublicDocument {
  id: string;
  title: string;
  content: string;
  icon: string | null;
  coverImageUrl: string | null;
  parentId: string | null;
  hasChildren: boolean;
  childCount: number;
  wordCount: number;
  updatedAt: string;
}

export interface PublicDocumentListItem {
  id: string;
  title: string;
  icon: string;
  parentId: string | null;
  hasChildren: boolean;
  childCount: number;
}

export interface Page<T> {
  content: T[];
  totalElements: number;
  totalPages: number;
  number: number;
  size: number;
}

/** What the gateway's `GET /auth/config` says about signing in. */
export interface AuthConfig {
  provider: 'dev' | 'oidc' | 'firebase';
  issuer?: string;
  clientId?: string;
  scope: string;
}

/** Where a revision's change came from (ARCHITECTURE 5.16). */
export type EditSource = 'EDIT' | 'COLLAB' | 'MCP' | 'RESTORE' | 'IMPORT';

/** A user as the history names them (the name is empty for someone nobody knows any more). */
export interface UserRef {
  id: string;
  name: string;
  avatarUrl: string | null;
}

/** One entry of GET /documents/{id}/revisions, newest first. */
export interface RevisionSummary {
  id: string;
  documentId: string;
  revision: number;
  title: string;
  /** null unless someone named it. */
  name: string | null;
  source: EditSource;
  createdAt: string;
  createdBy: UserRef;
  contributors: UserRef[];
  wordCount: number;
}

/** GET /documents/{id}/revisions/{revisionId}: the summary and the state it holds. */
export interface Revision extends RevisionSummary {
  /** The block-editor JSON array, as a string (as in WikiDocument). */
  content: string;
  icon: string | null;
  coverImageUrl: string | null;
}

export type WordOp = { op: 'equal' | 'insert' | 'delete'; text: string };

/** One block that differs, how to get from `from` to `to` (`text` for changed blocks, by words). */
export interface BlockChange {
  blockId: string;
  change: 'added' | 'removed' | 'changed' | 'moved';
  text?: WordOp[];
}

/** GET /documents/{id}/revisions/{revisionId}/diff?against=current|<revisionId>. */
export interface RevisionDiff {
  from: number;
  to: number;
  blocks: BlockChange[];
}

/** GET /documents/{id}/export?format=… */
export type ExportFormat = 'pdf' | 'docx' | 'markdown';

/** Who invited someone, as member and invitation answers name them (null for a workspace's creator). */
export interface PersonRef {
  id: string;
  name: string;
  avatar: string | null;
}

/** GET /workspaces/{id}/members. */
export interface WorkspaceMember {
  /** The membership's id: what PUT .../members/{memberId}/role and DELETE take. */
  id: string;
  userId: string;
  userName: string;
  userEmail: string;
  userAvatar: string | null;
  role: WorkspaceRole;
  status: string;
  invitedBy: PersonRef | null;
  invitedAt: string | null;
  acceptedAt: string | null;
  createdAt: string;
}

/** POST .../members/invite and POST .../invitations/{id}/resend. */
export interface InvitationResult {
  invitationId: string;
  email: string;
  role: WorkspaceRole;
  expiresAt: string;
  /** `<INVITE_URL>/invite/<token>`, the address the e-mail carries. */
  inviteLink: string;
}

/** GET /workspaces/{id}/invitations (pending ones) and the public GET /invitations/{token}/info. */
export interface WorkspaceInvitation {
  id: string;
  email: string;
  role: WorkspaceRole;
  status: 'PENDING' | 'ACCEPTED' | 'DECLINED' | 'CANCELLED' | 'EXPIRED';
  message: string | null;
  token: string;
  invitedBy: PersonRef | null;
  invitedAt: string;
  expiresAt: string;
  workspace: { id: string; name: string; icon: string | null };
}

/** GET /users/me/mcp-keys: never the key itself, only its first characters. */
export interface McpKey {
  id: string;
  name: string;
  prefix: string;
  lastUsedAt: string | null;
  createdAt: string;
}

/** POST /users/me/mcp-keys: the one answer that carries the key (ARCHITECTURE 5.3). */
export interface CreatedMcpKey extends Omit<McpKey, 'lastUsedAt'> {
  key: string;
}

/** A workspace's webhook (ARCHITECTURE 5.18): where signed event bodies go, and which events. */
export interface Webhook {
  id: string;
  url: string;
  /** Event types (`document.created`), groups (`document.*`) or `*`. */
  events: string[];
  enabled: boolean;
  createdAt: string;
}

/** POST /workspaces/{id}/webhooks: the one answer that carries the signing secret. */
export interface CreatedWebhook extends Webhook {
  secret: string;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event sent (or being sent) to a webhook, with the outcome of its latest attempt. */
export interface WebhookDelivery {
  id: string;
  event: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  responseStatus: number | null;
  durationMs: number | null;
  createdAt: string;
  deliveredAt: string | null;
}

/** Where a comment thread is attached: a block and a character range of its text (spec 4.6). */
export interface CommentAnchor {
  blockId: string;
  startOffset: number;
  endOffset: number;
  selectedText: string;
}

/** One comment; `content` may hold mentions written `@[Name](userId)` (ARCHITECTURE 5.6). */
export interface Comment {
  id: string;
  threadId: string;
  userId: string;
  userName: string;
  userAvatar: string | null;
  content: string;
  isEdited: boolean;
  createdAt: string;
  updatedAt: string;
}

export type ThreadStatus = 'open' | 'resolved';

/** GET /comments/documents/{id}/threads: a thread with its comments, oldest first. */
export interface CommentThread {
  id: string;
  documentId: string;
  workspaceId: string;
  anchor: CommentAnchor;
  status: ThreadStatus;
  resolvedAt: string | null;
  resolvedBy: UserRef | null;
  createdBy: UserRef;
  comments: Comment[];
  createdAt: string;
  updatedAt: string;
}

/** GET /workspaces/{id}/members/search?q=: at most 20 members whose name or e-mail holds q. */
export interface MemberMatch {
  userId: string;
  name: string;
  email: string;
  avatar: string | null;
  role: WorkspaceRole;
}

/** AttachmentResponse: `url` is the file's stable address (`/api/v1/attachments/file?url=<key>`). */
export interface Attachment {
  id: string;
  documentId: string;
  fileName: string;
  fileSize: number;
  mimeType: string;
  url: string;
  width: number | null;
  height: number | null;
  createdAt: string;
}

/** Spec 4.9 / ARCHITECTURE 5.6: what a person is told about. */
export type NotificationType =
  | 'COMMENT_MENTION'
  | 'COMMENT_REPLY'
  | 'THREAD_RESOLVED'
  | 'WORKSPACE_INVITATION'
  | 'INVITATION_ACCEPTED'
  | 'MEMBER_ROLE_CHANGED'
  | 'MEMBER_REMOVED'
  | 'DOCUMENT_UPDATED'
  | 'WEBHOOK_DISABLED'
  | 'JOB_FINISHED';

/** NotificationResponse: GET /notifications and the stream's `notification` event. */
export interface AppNotification {
  id: string;
  type: NotificationType;
  status: 'UNREAD' | 'READ' | 'ACTIONED' | 'DISMISSED';
  title: string;
  message: string;
  /** An invitation that can still be accepted or declined. */
  actionable: boolean;
  actor: PersonRef | null;
  workspace: { id: string; name: string } | null;
  document: { id: string; title: string } | null;
  references: { invitationId: string | null; commentThreadId: string | null };
  metadata: Record<string, unknown>;
  createdAt: string;
  readAt: string | null;
  expiresAt: string | null;
}

/** POST /documents/{id}/export and /workspaces/{id}/export: the formats of a zip of many documents. */
export type TreeExportFormat = 'markdown' | 'html' | 'pdf' | 'docx';

export type JobStatus = 'queued' | 'running' | 'done' | 'failed';

/** GET /documents/import: what an import takes on this server. */
export interface ImportTerms {
  maxBytes: number;
  extensions: string[];
  maxZipEntries: number;
  maxUncompressedBytes: number;
}

/** JobResponse (ARCHITECTURE 5.19): GET /jobs/{id}, the owner's only. */
export interface Job {
  id: string;
  kind: 'import' | 'export';
  status: JobStatus;
  progress: { done: number; total: number };
  /** Once done: an export's `downloadUrl` (and fileName, bytes…), an import's `documentIds`. */
  result: { downloadUrl?: string; fileName?: string; documentIds?: string[]; warningCount?: number } | null;
  error: string | null;
  workspaceId: string;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}
