import { useMutation, useQueryClient } from '@tanstack/react-query';
import { commentKeys, documentKeys } from '../api/queries';
import type { Comment, CommentAnchor, CommentThread } from '../api/types';
import { useApi } from '../auth/AuthContext';

/**
 * Every change the Comments panel makes, each refreshing the document's threads (and the document,
 * whose openCommentCount follows) once it is done, whether it worked or not: a refusal (409 for a
 * thread someone else just resolved) means the list is stale.
 */
export function useCommentMutations(documentId: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  const onSettled = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: commentKeys.threads(documentId) }),
      queryClient.invalidateQueries({ queryKey: documentKeys.detail(documentId) }),
    ]);

  return {
    createThread: useMutation({
      mutationFn: (input: { anchor: CommentAnchor; content: string }) =>
        api.post<CommentThread>(`/comments/documents/${documentId}/threads`, {
          anchor: input.anchor,
          comment: { content: input.content },
        }),
      onSettled,
    }),
    reply: useMutation({
      mutationFn: (input: { threadId: string; content: string }) =>
        api.post<Comment>(`/comments/threads/${input.threadId}/comments`, { content: input.content }),
      onSettled,
    }),
    edit: useMutation({
      mutationFn: (input: { commentId: string; content: string }) =>
        api.put<Comment>(`/comments/${input.commentId}`, { content: input.content }),
      onSettled,
    }),
    removeComment: useMutation({
      mutationFn: (commentId: string) => api.delete(`/comments/${commentId}`),
      onSettled,
    }),
    setStatus: useMutation({
      mutationFn: (input: { threadId: string; action: 'resolve' | 'reopen' }) =>
        api.put<CommentThread>(`/comments/threads/${input.threadId}/${input.action}`),
      onSettled,
    }),
    removeThread: useMutation({
      mutationFn: (threadId: string) => api.delete(`/comments/threads/${threadId}`),
      onSettled,
    }),
  };
}

export type CommentMutations = ReturnType<typeof useCommentMutations>;
