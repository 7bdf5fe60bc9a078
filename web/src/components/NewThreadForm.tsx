import { useEffect, useRef, useState } from 'react';
import type { CommentAnchor, CommentThread } from '../api/types';
import { contentOf } from '../comments/mentions';
import { useCommentMutations } from '../comments/useCommentMutations';
import { type CommentDraft, EMPTY_DRAFT, MentionTextarea } from './MentionTextarea';

interface Props {
  anchor: CommentAnchor;
  documentId: string;
  workspaceId: string;
  onDone: (created: CommentThread | null) => void;
}

/** The first comment of a new thread on the text just selected in the editor. */
export function NewThreadForm({ anchor, documentId, workspaceId, onDone }: Props) {
  const { createThread } = useCommentMutations(documentId);
  const [draft, setDraft] = useState<CommentDraft>(EMPTY_DRAFT);
  const box = useRef<HTMLTextAreaElement>(null);

  // A new selection commented on replaces the draft's quote: the box is focused for it.
  useEffect(() => {
    if (anchor) box.current?.focus();
  }, [anchor]);

  const submit = async () => {
    const content = contentOf(draft.text, draft.mentions).trim();
    if (!content) return;
    try {
      onDone(await createThread.mutateAsync({ anchor, content }));
    } catch {
      // Shown below from createThread.error.
    }
  };

  return (
    <form
      className="comment-form new-thread"
      aria-label="New comment"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <blockquote className="comment-quote">{anchor.selectedText}</blockquote>
      <MentionTextarea
        label="Comment"
        workspaceId={workspaceId}
        draft={draft}
        onChange={setDraft}
        onSubmit={() => void submit()}
        onCancel={() => onDone(null)}
        textareaRef={box}
        disabled={createThread.isPending}
      />
      {createThread.error && <p role="alert">The comment could not be added: {createThread.error.message}</p>}
      <div className="form-actions">
        <button type="submit" disabled={createThread.isPending || !draft.text.trim()}>
          Add comment
        </button>
        <button type="button" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
