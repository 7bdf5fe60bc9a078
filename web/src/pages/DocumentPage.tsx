import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useId, useRef, useState } from 'react';
import { useParams } from 'react-router';
import { ApiError } from '../api/client';
import { ancestorsQuery, documentQuery, meQuery, permissionQuery } from '../api/queries';
import { useApi, useAuth } from '../auth/AuthContext';
import { useDocumentComments } from '../comments/useDocumentComments';
import { ArchivedBanner } from '../components/ArchivedBanner';
import { AttachmentsPanel } from '../components/AttachmentsPanel';
import { Breadcrumbs } from '../components/Breadcrumbs';
import { CommentSelectionButton } from '../components/CommentSelectionButton';
import { CommentsButton } from '../components/CommentsButton';
import { CommentsPanel } from '../components/CommentsPanel';
import { DocumentCover } from '../components/DocumentCover';
import { DocumentIconPicker } from '../components/DocumentIconPicker';
import { ErrorBoundary } from '../components/ErrorBoundary';
import { ExportMenu } from '../components/ExportMenu';
import { HistoryPanel } from '../components/HistoryPanel';
import { ShareDialog } from '../components/ShareDialog';
import { TitleField } from '../components/TitleField';
import { WatchButton } from '../components/WatchButton';
import { NotFoundPage } from './NotFoundPage';

// BlockNote, Mantine's editor parts, Yjs and Hocuspocus load with the first document opened.
const loadEditor = () => import('../editor/CollaborativeEditor');
const CollaborativeEditor = lazy(loadEditor);

const EDITOR_ROLES = new Set(['OWNER', 'ADMIN', 'EDITOR']);
const ADMIN_ROLES = new Set(['OWNER', 'ADMIN']);
const COMMENTER_ROLES = new Set(['OWNER', 'ADMIN', 'EDITOR', 'COMMENTER']);

const isMissing = (error: unknown) => error instanceof ApiError && (error.status === 404 || error.status === 403);

/** `/w/<ws>/d/<id>`: a document, its title, icon and cover, and the live editor. */
export function DocumentPage() {
  const { workspaceId, documentId } = useParams();
  const api = useApi();
  const { session } = useAuth();
  const id = documentId ?? '';
  // The editor's files load while the document is read rather than after it (a cold open waited for both in turn).
  useEffect(() => {
    void loadEditor();
  }, []);
  const document = useQuery({ ...documentQuery(api, id), enabled: Boolean(id) });
  const permission = useQuery({ ...permissionQuery(api, id), enabled: Boolean(id) });
  const ancestors = useQuery({ ...ancestorsQuery(api, id), enabled: Boolean(id) });
  const me = useQuery(meQuery(api));
  const [sharing, setSharing] = useState(false);
  // One side panel at a time: History, Comments or Attachments.
  const [panel, setPanel] = useState<'history' | 'comments' | 'attachments' | null>(null);
  const attachmentsOpen = panel === 'attachments';
  const attachmentsButton = useRef<HTMLButtonElement>(null);
  const attachmentsPanelId = useId();
  const historyOpen = panel === 'history';
  const commentsOpen = panel === 'comments';
  const historyButton = useRef<HTMLButtonElement>(null);
  const commentsButton = useRef<HTMLButtonElement>(null);
  const historyPanelId = useId();
  const commentsPanelId = useId();
  const editorArea = useRef<HTMLDivElement>(null);
  const openComments = useCallback(() => setPanel('comments'), []);
  const comments = useDocumentComments(id, editorArea, commentsOpen, openComments);

  const token = useCallback(async () => (await session.accessToken()) ?? '', [session]);
  const closeHistory = useCallback(() => {
    setPanel(null);
    historyButton.current?.focus();
  }, []);
  const closeComments = useCallback(() => {
    setPanel(null);
    commentsButton.current?.focus();
  }, []);
  const closeAttachments = useCallback(() => {
    setPanel(null);
    attachmentsButton.current?.focus();
  }, []);
  const focusEditor = useCallback(() => {
    editorArea.current?.querySelector<HTMLElement>('[contenteditable]')?.focus();
  }, []);

  const title = document.data?.title;
  useEffect(() => {
    if (title !== undefined) window.document.title = `${title || 'Untitled'} · Wiki`;
  }, [title]);

  if (isMissing(document.error) || isMissing(permission.error)) return <NotFoundPage what="document" />;
  const failure = document.error ?? permission.error;
  if (failure) {
    return (
      <main className="document-page">
        <p role="alert">The document could not be loaded: {failure.message}</p>
      </main>
    );
  }
  if (!document.data || !permission.data) return <p className="loading">Loading the document…</p>;

  const doc = document.data;
  const { canEdit, role } = permission.data;
  const isEditorRole = EDITOR_ROLES.has(role);
  const viewer = { userId: me.data?.id ?? '', role };
  const mayComment = COMMENTER_ROLES.has(role) && !doc.isArchived;

  return (
    <div className="document-frame">
      <div className="document-scroll">
        <main className="document-page">
          <div className="document-toolbar">
            <Breadcrumbs crumbs={ancestors.data ?? []} hrefFor={(crumb) => `/w/${workspaceId}/d/${crumb}`} />
            <div className="document-actions">
              <ExportMenu documentId={doc.id} title={doc.title} />
              <button
                ref={historyButton}
                type="button"
                aria-expanded={historyOpen}
                aria-controls={historyOpen ? historyPanelId : undefined}
                onClick={() => (historyOpen ? closeHistory() : setPanel('history'))}
              >
                History
              </button>
              <CommentsButton
                ref={commentsButton}
                expanded={commentsOpen}
                panelId={commentsPanelId}
                openCount={comments.openCount ?? doc.openCommentCount}
                onClick={() => (commentsOpen ? closeComments() : openComments())}
              />
              <button
                ref={attachmentsButton}
                type="button"
                aria-expanded={attachmentsOpen}
                aria-controls={attachmentsOpen ? attachmentsPanelId : undefined}
                onClick={() => (attachmentsOpen ? closeAttachments() : setPanel('attachments'))}
              >
                Attachments
              </button>
              <WatchButton documentId={doc.id} />
              <button type="button" className="share-button" onClick={() => setSharing(true)}>
                Share
              </button>
            </div>
          </div>
          <ShareDialog document={doc} canPublish={isEditorRole} opened={sharing} onClose={() => setSharing(false)} />
          {doc.isArchived && <ArchivedBanner document={doc} canRestore={isEditorRole} />}
          <DocumentCover document={doc} canEdit={canEdit} />
          <div className="document-heading">
            <h1 className="visually-hidden">{doc.title || 'Untitled'}</h1>
            <DocumentIconPicker document={doc} canEdit={canEdit} />
            <TitleField key={doc.id} document={doc} readOnly={!canEdit} onEnter={focusEditor} />
          </div>
          {!canEdit && !doc.isArchived && (
            <p className="quiet">
              You can read this document; your role ({role.toLowerCase()}) does not allow editing.
            </p>
          )}
          <div ref={comments.editorAreaRef} className="editor-area">
            <ErrorBoundary fallback={(error) => <p role="alert">The editor could not be shown: {error.message}</p>}>
              <Suspense fallback={<p className="loading">Loading the editor…</p>}>
                {me.data ? (
                  <CollaborativeEditor
                    key={`${doc.id}:${canEdit}`}
                    documentId={doc.id}
                    workspaceId={doc.workspaceId}
                    editable={canEdit}
                    user={{ id: me.data.id, name: me.data.name }}
                    token={token}
                  />
                ) : me.error ? (
                  <p role="alert">Your profile could not be loaded: {me.error.message}</p>
                ) : (
                  <p className="loading">Loading the editor…</p>
                )}
              </Suspense>
            </ErrorBoundary>
            {mayComment && <CommentSelectionButton root={comments.editorArea} onComment={comments.startThread} />}
          </div>
        </main>
      </div>
      {historyOpen && (
        <HistoryPanel
          key={doc.id}
          id={historyPanelId}
          documentId={doc.id}
          canName={isEditorRole}
          canRestore={isEditorRole && !doc.isArchived}
          archived={doc.isArchived}
          canDelete={ADMIN_ROLES.has(role)}
          onClose={closeHistory}
        />
      )}
      {attachmentsOpen && (
        <AttachmentsPanel
          key={doc.id}
          id={attachmentsPanelId}
          documentId={doc.id}
          canDelete={isEditorRole && !doc.isArchived}
          onClose={closeAttachments}
        />
      )}
      {commentsOpen && me.data && (
        <CommentsPanel
          key={doc.id}
          id={commentsPanelId}
          documentId={doc.id}
          workspaceId={doc.workspaceId}
          viewer={viewer}
          threads={comments.threads}
          draftAnchor={mayComment ? comments.draftAnchor : null}
          onDraftDone={comments.finishDraft}
          activeThreadId={comments.activeThreadId}
          onShowInDocument={comments.showInDocument}
          onClose={closeComments}
        />
      )}
    </div>
  );
}
