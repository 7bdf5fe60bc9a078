import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useApi } from '../auth/AuthContext';
import { type DocumentField, FieldConflict, saveDocumentField } from './document-writes';
import { documentKeys } from './queries';
import type { WikiDocument } from './types';

/**
 * Saves one field of a document (If-Match, see saveDocumentField) and keeps the cache true: the
 * answer becomes the cached document, and lists and breadcrumbs that show titles and icons are
 * read again. A FieldConflict puts the server's document in the cache before it is rethrown.
 */
export function useSaveDocumentField() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useCallback(
    async <F extends DocumentField>(base: WikiDocument, field: F, value: WikiDocument[F]): Promise<WikiDocument> => {
      try {
        const saved = await saveDocumentField(api, base, field, value);
        queryClient.setQueryData(documentKeys.detail(base.id), saved);
        void queryClient.invalidateQueries({
          queryKey: documentKeys.all,
          predicate: (query) => query.queryKey[1] !== 'detail' && query.queryKey[1] !== 'permission',
        });
        return saved;
      } catch (error) {
        if (error instanceof FieldConflict) queryClient.setQueryData(documentKeys.detail(base.id), error.current);
        throw error;
      }
    },
    [api, queryClient],
  );
}
