import { useEffect, useRef, useState } from 'react';
import type { Comment } from '../api/types';
import { contentOf, draftOf } from '../comments/mentions';
import { canDeleteComment, canEditComment, type Viewer } from '../comments/rules';
import { useCommentMutations } from '../comments/useCommentMutations';
import { formatWhen } from '../history/labels';
import { CommentContent } from './CommentContent';
import { type CommentDraft, MentionTextarea } from './MentionTextarea';

interface Props {
  comment: Comment;
  documentId: string;
  workspaceId: string;
  viewer: Viewer;
  /** Asks the panel to confirm and delete it. */
  onDelete: (comment: Comment) => void;
}

/** One comment: who wrote it and when, whether it was edited, and its own Edit and Delete. */
export function CommentEntry({ comment, documentId, workspaceId, viewer, onDelete }: Props) {
  const { edit } = useCommentMutations(documentId);
  const [draft, setDraft] = useState<CommentDraft | null>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  const mine = comment.userId === viewer.userId;
  const editing = draft !== null;

  // Focus follows the mode: into the box when editing starts, back to Edit when it ends (after the
  // render that brings the button back; a frame callback is late or never runs in a hidden tab).
  const wasEditing = useRef(false);
  useEffect(() => {
    if (editing) box.current?.focus();
    else if (wasEditing.current) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);

  const stopEditing = () => {
    setDraft(null);
    edit.reset();
  };

  const save = async () => {
    if (!draft) return;
    const content = contentOf(draft.text, draft.mentions).trim();
    if (!content) return;
    try {
      await edit.mutateAsync({ commentId: comment.id, content });
      stopEditing();
    } catch {
      // Shown below from edit.error.
    }
  };

  return (
    <li className="comment-entry">
      <p className="comment-meta">
        <span className="comment-author">{mine ? `${comment.userName} (you)` : comment.userName}</span>{' '}
        <time dateTime={comment.createdAt}>{formatWhen(comment.createdAt)}</time>
        {comment.isEdited && (
          <span className="comment-edited" title={`Edited ${formatWhen(comment.updatedAt)}`}>
            {' '}
            (edited)
          </span>
        )}
      </p>
      {draft ? (
        <form
          className="comment-form"
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          <MentionTextarea
            label="Edit comment"
            workspaceId={workspaceId}
            draft={draft}
            onChange={setDraft}
            onSubmit={() => void save()}
            onCancel={stopEditing}
            disabled={edit.isPending}
            textareaRef={box}
          />
          {edit.error && <p role="alert">The comment could not be saved: {edit.error.message}</p>}
          <div className="form-actions">
            <button type="submit" disabled={edit.isPending || !draft.text.trim()}>
              Save
            </button>
            <button type="button" onClick={stopEditing}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <CommentContent content={comment.content} />
      )}
      {!draft && (canEditComment(viewer, comment) || canDeleteComment(viewer, comment)) && (
        <div className="comment-actions">
          {canEditComment(viewer, comment) && (
            <button
              ref={editButton}
              type="button"
              className="subtle-button"
              onClick={() => setDraft(draftOf(comment.content))}
            >
              Edit
            </button>
          )}
          {canDeleteComment(viewer, comment) && (
            <button type="button" className="subtle-button danger-button" onClick={() => onDelete(comment)}>
              Delete
            </button>
          )}
        </div>
      )}
    </li>
  );
}
