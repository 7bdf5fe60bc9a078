import { useEffect, useRef, useState } from 'react';
import type { Comment, CommentThread } from '../api/types';
import { contentOf } from '../comments/mentions';
import { canDeleteThread, canWrite, type Viewer } from '../comments/rules';
import { useCommentMutations } from '../comments/useCommentMutations';
import { formatWhen, nameOf } from '../history/labels';
import { CommentEntry } from './CommentEntry';
import { type CommentDraft, EMPTY_DRAFT, MentionTextarea } from './MentionTextarea';

interface Props {
  thread: CommentThread;
  documentId: string;
  workspaceId: string;
  viewer: Viewer;
  /** The thread the person came for (a click on its highlight, or just created): shown and focused. */
  active: boolean;
  onShowInDocument: (thread: CommentThread) => void;
  onDeleteThread: (thread: CommentThread) => void;
  onDeleteComment: (comment: Comment) => void;
  /** After a resolve or reopen: the panel says so (the thread may leave the filtered list). */
  onTransition: (thread: CommentThread, action: 'resolve' | 'reopen') => void;
}

const shortQuote = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}…` : text);

/** A thread: the text it is about, its comments, and Reply, Resolve or Reopen, Show in document, Delete. */
export function CommentThreadCard({
  thread,
  documentId,
  workspaceId,
  viewer,
  active,
  onShowInDocument,
  onDeleteThread,
  onDeleteComment,
  onTransition,
}: Props) {
  const { reply, setStatus } = useCommentMutations(documentId);
  const [replying, setReplying] = useState(false);
  const [draft, setDraft] = useState<CommentDraft>(EMPTY_DRAFT);
  const card = useRef<HTMLElement>(null);
  const replyButton = useRef<HTMLButtonElement>(null);
  const replyBox = useRef<HTMLTextAreaElement>(null);
  const writable = canWrite(viewer);
  const resolved = thread.status === 'resolved';

  useEffect(() => {
    if (!active) return;
    card.current?.scrollIntoView({ block: 'nearest' });
    card.current?.focus({ preventScroll: true });
  }, [active]);

  useEffect(() => {
    if (replying) replyBox.current?.focus();
  }, [replying]);

  const closeReply = () => {
    setReplying(false);
    setDraft(EMPTY_DRAFT);
    reply.reset();
    replyButton.current?.focus();
  };

  const send = async () => {
    const content = contentOf(draft.text, draft.mentions).trim();
    if (!content) return;
    try {
      await reply.mutateAsync({ threadId: thread.id, content });
      closeReply();
    } catch {
      // Shown below from reply.error.
    }
  };

  // Not disabled while pending: a disabled button would drop the focus.
  const transition = () => {
    if (setStatus.isPending) return;
    const action = resolved ? 'reopen' : 'resolve';
    setStatus.mutate({ threadId: thread.id, action }, { onSuccess: () => onTransition(thread, action) });
  };

  return (
    <article
      ref={card}
      tabIndex={-1}
      className="comment-thread"
      data-thread-id={thread.id}
      data-status={thread.status}
      data-active={active || undefined}
      aria-label={`Thread on “${shortQuote(thread.anchor.selectedText)}”`}
    >
      <blockquote className="comment-quote">{thread.anchor.selectedText}</blockquote>
      {resolved && (
        <p className="comment-resolved">
          Resolved
          {thread.resolvedBy ? ` by ${nameOf(thread.resolvedBy)}` : ''}
          {thread.resolvedAt ? `, ${formatWhen(thread.resolvedAt)}` : ''}
        </p>
      )}
      <ol className="comment-list" aria-label="Comments in this thread">
        {thread.comments.map((comment) => (
          <CommentEntry
            key={comment.id}
            comment={comment}
            documentId={documentId}
            workspaceId={workspaceId}
            viewer={viewer}
            onDelete={onDeleteComment}
          />
        ))}
      </ol>
      <div className="thread-actions">
        {writable && (
          <button
            ref={replyButton}
            type="button"
            aria-expanded={replying}
            onClick={() => (replying ? closeReply() : setReplying(true))}
          >
            Reply
          </button>
        )}
        {writable && (
          <button type="button" onClick={transition}>
            {resolved ? 'Reopen' : 'Resolve'}
          </button>
        )}
        <button type="button" className="subtle-button" onClick={() => onShowInDocument(thread)}>
          Show in document
        </button>
        {canDeleteThread(viewer, thread) && (
          <button type="button" className="subtle-button danger-button" onClick={() => onDeleteThread(thread)}>
            Delete thread
          </button>
        )}
      </div>
      {setStatus.error && (
        <p role="alert">
          The thread could not be {resolved ? 'reopened' : 'resolved'}: {setStatus.error.message}
        </p>
      )}
      {replying && (
        <form
          className="comment-form"
          onSubmit={(event) => {
            event.preventDefault();
            void send();
          }}
        >
          <MentionTextarea
            label="Your reply"
            workspaceId={workspaceId}
            draft={draft}
            onChange={setDraft}
            onSubmit={() => void send()}
            onCancel={closeReply}
            textareaRef={replyBox}
            disabled={reply.isPending}
          />
          {reply.error && <p role="alert">The reply could not be sent: {reply.error.message}</p>}
          <div className="form-actions">
            <button type="submit" disabled={reply.isPending || !draft.text.trim()}>
              Send reply
            </button>
            <button type="button" onClick={closeReply}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </article>
  );
}
