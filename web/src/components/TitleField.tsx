import { type KeyboardEvent, useCallback, useEffect, useRef, useState } from 'react';
import { FieldConflict } from '../api/document-writes';
import type { WikiDocument } from '../api/types';
import { useSaveDocumentField } from '../api/useSaveDocumentField';

const SAVE_AFTER_MS = 600;
export const TITLE_MAX = 500;

interface Props {
  document: WikiDocument;
  readOnly: boolean;
  /** Enter in the title: go on writing in the editor. */
  onEnter: () => void;
}

/**
 * The document's title as the `textbox` "Title": saved a moment after typing stops (and on
 * leaving the field), each save based on the revision the edit started from. When someone else
 * renamed the document meanwhile, their title is shown and the person is told.
 */
export function TitleField({ document, readOnly, onEnter }: Props) {
  const saveField = useSaveDocumentField();
  const [draft, setDraft] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const draftRef = useRef<string | null>(null);
  /** The document as it was when the unsaved edit began. */
  const baseRef = useRef<WikiDocument | null>(null);
  const queue = useRef<Promise<void>>(Promise.resolve());

  const changeDraft = useCallback((value: string | null) => {
    draftRef.current = value;
    setDraft(value);
  }, []);

  const flush = useCallback(() => {
    queue.current = queue.current.then(async () => {
      const sent = draftRef.current;
      const base = baseRef.current;
      if (sent === null || !base) return;
      if (sent === base.title) {
        changeDraft(null);
        baseRef.current = null;
        return;
      }
      try {
        const saved = await saveField(base, 'title', sent);
        setError(null);
        if (draftRef.current === sent) {
          changeDraft(null);
          baseRef.current = null;
        } else {
          baseRef.current = saved; // typing went on: the next save builds on this one
        }
      } catch (failure) {
        if (failure instanceof FieldConflict) {
          changeDraft(null);
          baseRef.current = null;
          setNotice(
            `Someone else renamed this document to “${failure.current.title || 'Untitled'}” while you were typing, so your title “${sent}” was not saved. Type it again to replace theirs.`,
          );
        } else {
          setError(`The title could not be saved: ${(failure as Error).message}`);
        }
      }
    });
  }, [saveField, changeDraft]);

  useEffect(() => {
    if (draft === null) return;
    const timer = setTimeout(flush, SAVE_AFTER_MS);
    return () => clearTimeout(timer);
  }, [draft, flush]);

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    flush();
    onEnter();
  };

  return (
    <div className="title-field">
      <input
        type="text"
        className="document-title"
        aria-label="Title"
        placeholder="Untitled"
        maxLength={TITLE_MAX}
        value={draft ?? document.title}
        readOnly={readOnly}
        onChange={(event) => {
          if (!baseRef.current) baseRef.current = document;
          setNotice(null);
          changeDraft(event.target.value);
        }}
        onBlur={flush}
        onKeyDown={onKeyDown}
      />
      {notice && (
        <p role="alert" className="notice">
          {notice}
        </p>
      )}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </div>
  );
}
