import { useQuery } from '@tanstack/react-query';
import { type RefObject, useCallback, useEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router';
import { threadsQuery } from '../api/queries';
import type { CommentAnchor, CommentThread } from '../api/types';
import { useApi } from '../auth/AuthContext';
import { locateAnchor } from './anchor-dom';
import { useCommentHighlights } from './useCommentHighlights';

/**
 * Others' comments arrive as the collaboration server's announcements (useRoomAnnouncements); this
 * slow re-read only covers a connection that missed one.
 */
const FALLBACK_REFRESH_MS = 120_000;
const NO_THREADS: CommentThread[] = [];
const THREAD_LINK = /^#thread-([0-9a-f-]{36})$/i;

/**
 * The comment side of the document page: its threads (read again when announced, on focus, and
 * now and then),
 * their marks in the editor, the thread in focus, and the selection being commented on.
 */
export function useDocumentComments(
  documentId: string,
  editorArea: RefObject<HTMLDivElement | null>,
  panelOpen: boolean,
  openPanel: () => void,
) {
  const api = useApi();
  const threads = useQuery({
    ...threadsQuery(api, documentId),
    enabled: Boolean(documentId),
    refetchInterval: FALLBACK_REFRESH_MS,
    refetchOnWindowFocus: 'always',
  });
  const [activeThreadId, setActiveThreadId] = useState<string | null>(null);
  const [draftAnchor, setDraftAnchor] = useState<CommentAnchor | null>(null);
  // The editor's area appears once the document has loaded: effects over it wait for the element.
  const [area, setArea] = useState<HTMLElement | null>(null);
  const editorAreaRef = useCallback(
    (element: HTMLDivElement | null) => {
      editorArea.current = element;
      setArea(element);
    },
    [editorArea],
  );

  // Closing the panel lets go of the thread in focus and of an unsent new thread.
  useEffect(() => {
    if (panelOpen) return;
    setActiveThreadId(null);
    setDraftAnchor(null);
  }, [panelOpen]);

  const focusThread = useCallback(
    (threadId: string) => {
      setActiveThreadId(threadId);
      openPanel();
    },
    [openPanel],
  );
  useCommentHighlights(area, threads.data ?? NO_THREADS, activeThreadId, focusThread);

  // A link to a thread (`#thread-<id>`, as notifications of mentions and replies open) opens it once.
  const { hash } = useLocation();
  const openedFromLink = useRef<string | null>(null);
  useEffect(() => {
    const linked = THREAD_LINK.exec(hash)?.[1]?.toLowerCase();
    if (!linked || openedFromLink.current === linked) return;
    if (!threads.data?.some((thread) => thread.id === linked)) return;
    openedFromLink.current = linked;
    focusThread(linked);
  }, [hash, threads.data, focusThread]);

  const startThread = useCallback(
    (anchor: CommentAnchor) => {
      setDraftAnchor(anchor);
      setActiveThreadId(null);
      openPanel();
    },
    [openPanel],
  );

  const finishDraft = useCallback((created: CommentThread | null) => {
    setDraftAnchor(null);
    if (created) setActiveThreadId(created.id);
  }, []);

  /**
   * Scrolls the editor to the thread's text and, when the editor takes a caret, puts it there.
   * Returns false when the text is no longer in the document.
   */
  const showInDocument = useCallback(
    (thread: CommentThread): boolean => {
      setActiveThreadId(thread.id);
      const range = area ? locateAnchor(area, thread.anchor) : null;
      if (!area || !range) return false;
      const target =
        range.startContainer instanceof Element ? range.startContainer : range.startContainer.parentElement;
      target?.scrollIntoView({ block: 'center' });
      const editable = area.querySelector<HTMLElement>('[contenteditable="true"]');
      if (editable) {
        editable.focus({ preventScroll: true });
        const caret = range.cloneRange();
        caret.collapse(true);
        window.getSelection()?.removeAllRanges();
        window.getSelection()?.addRange(caret);
      }
      return true;
    },
    [area],
  );

  const openCount = threads.data?.filter((thread) => thread.status === 'open').length;
  return {
    editorAreaRef,
    editorArea: area,
    threads,
    openCount,
    activeThreadId,
    draftAnchor,
    startThread,
    finishDraft,
    showInDocument,
  };
}
