import './CommentsPanel.css';
import type { UseQueryResult } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { Comment, CommentAnchor, CommentThread } from '../api/types';
import { canWrite, readOnlyReason, type Viewer } from '../comments/rules';
import { useCommentMutations } from '../comments/useCommentMutations';
import { CommentThreadCard } from './CommentThreadCard';
import { ConfirmDialog } from './ConfirmDialog';
import { NewThreadForm } from './NewThreadForm';
import { type ThreadFilter, ThreadFilterControl } from './ThreadFilterControl';

interface Props {
  id: string;
  documentId: string;
  workspaceId: string;
  viewer: Viewer;
  threads: UseQueryResult<CommentThread[]>;
  /** The selection being commented on, while its first comment is written. */
  draftAnchor: CommentAnchor | null;
  onDraftDone: (created: CommentThread | null) => void;
  activeThreadId: string | null;
  /** False when the thread's text is no longer in the document. */
  onShowInDocument: (thread: CommentThread) => boolean;
  onClose: () => void;
}

type Pending = { kind: 'thread'; thread: CommentThread } | { kind: 'comment'; comment: Comment } | null;

const EMPTY_TEXT: Record<ThreadFilter, string> = {
  open: 'No open threads.',
  resolved: 'No resolved threads.',
  all: 'No comments yet.',
};

/**
 * The `complementary` region "Comments" (ARCHITECTURE 5.17): the document's threads filtered by
 * status, a new thread's first comment, and deletes behind a confirmation. Escape closes it.
 */
export function CommentsPanel({
  id,
  documentId,
  workspaceId,
  viewer,
  threads,
  draftAnchor,
  onDraftDone,
  activeThreadId,
  onShowInDocument,
  onClose,
}: Props) {
  const heading = useRef<HTMLHeadingElement>(null);
  const { removeComment, removeThread } = useCommentMutations(documentId);
  const [filter, setFilter] = useState<ThreadFilter>('open');
  const [pending, setPending] = useState<Pending>(null);
  const [said, setSaid] = useState('');
  const writable = canWrite(viewer);

  // Focus goes to the heading when the panel opens, unless a new comment's box or the thread the
  // person came for takes it (their effects run first, as children).
  const openedFor = useRef(draftAnchor !== null || activeThreadId !== null);
  useEffect(() => {
    if (!openedFor.current) heading.current?.focus();
  }, []);

  // The thread the person came for is listed whatever the filter.
  const shown = (threads.data ?? []).filter(
    (thread) => filter === 'all' || thread.status === filter || thread.id === activeThreadId,
  );
  const deleting = pending?.kind === 'thread' ? removeThread : removeComment;

  const confirmDelete = async () => {
    if (!pending) return;
    try {
      if (pending.kind === 'thread') await removeThread.mutateAsync(pending.thread.id);
      else await removeComment.mutateAsync(pending.comment.id);
      setSaid(pending.kind === 'thread' ? 'The thread is deleted.' : 'The comment is deleted.');
      setPending(null);
      heading.current?.focus();
    } catch {
      // Shown in the dialog from deleting.error.
    }
  };

  const transitioned = (thread: CommentThread, action: 'resolve' | 'reopen') => {
    setSaid(action === 'resolve' ? 'The thread is resolved.' : 'The thread is open again.');
    const leaves = filter === (action === 'resolve' ? 'open' : 'resolved') && thread.id !== activeThreadId;
    if (leaves) heading.current?.focus();
  };

  return (
    <aside
      id={id}
      aria-label="Comments"
      className="side-panel comments-panel"
      onKeyDown={(event) => {
        if (event.key !== 'Escape' || event.defaultPrevented) return;
        event.stopPropagation();
        onClose();
      }}
    >
      <div className="comments-heading">
        <h2 ref={heading} tabIndex={-1}>
          Comments
        </h2>
        <button type="button" className="subtle-button" onClick={() => void threads.refetch()}>
          {threads.isFetching ? 'Refreshing…' : 'Refresh'}
        </button>
        <button type="button" onClick={onClose}>
          Close comments
        </button>
      </div>
      {writable && draftAnchor && (
        <NewThreadForm
          anchor={draftAnchor}
          documentId={documentId}
          workspaceId={workspaceId}
          onDone={(created) => {
            if (created) {
              setSaid('Your comment is added.');
              if (filter === 'resolved') setFilter('open');
            }
            onDraftDone(created);
          }}
        />
      )}
      {!writable && <p className="quiet">{readOnlyReason(viewer.role)}</p>}
      <ThreadFilterControl value={filter} onChange={setFilter} />
      <p role="status" className="quiet">
        {said}
      </p>
      {threads.isPending && <p className="quiet">Loading the comments…</p>}
      {threads.error && <p role="alert">The comments could not be loaded: {threads.error.message}</p>}
      {threads.isSuccess && shown.length === 0 && (
        <p className="quiet">
          {EMPTY_TEXT[filter]}
          {writable && ' Select text in the document and choose Comment (or press Ctrl+Alt+M) to start a thread.'}
        </p>
      )}
      {shown.length > 0 && (
        <ul className="thread-list" aria-label="Threads">
          {shown.map((thread) => (
            <li key={thread.id}>
              <CommentThreadCard
                thread={thread}
                documentId={documentId}
                workspaceId={workspaceId}
                viewer={viewer}
                active={thread.id === activeThreadId}
                onShowInDocument={(t) => {
                  if (!onShowInDocument(t)) setSaid('The text of this thread is no longer in the document.');
                }}
                onDeleteThread={(t) => setPending({ kind: 'thread', thread: t })}
                onDeleteComment={(c) => setPending({ kind: 'comment', comment: c })}
                onTransition={transitioned}
              />
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        opened={pending !== null}
        title={pending?.kind === 'thread' ? 'Delete this thread?' : 'Delete this comment?'}
        confirmLabel="Delete"
        busy={deleting.isPending}
        error={deleting.error ? `Deleting failed: ${deleting.error.message}` : null}
        onConfirm={() => void confirmDelete()}
        onCancel={() => {
          setPending(null);
          deleting.reset();
        }}
      >
        <p>
          {pending?.kind === 'thread'
            ? 'The thread and all its comments are removed for everyone.'
            : 'The comment is removed for everyone. If it is the only one, its thread goes too.'}
        </p>
      </ConfirmDialog>
    </aside>
  );
}
