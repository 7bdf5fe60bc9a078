import { type ApiClient, ApiError } from './client';
import type { WikiDocument } from './types';

/** The fields a person sets one at a time on the document page. */
export type DocumentField = 'title' | 'icon' | 'coverImageUrl';

/** Someone else changed the same field since `base` was read: `current` is what the server holds now. */
export class FieldConflict extends Error {
  constructor(
    readonly field: DocumentField,
    readonly current: WikiDocument,
  ) {
    super(`${field} was changed by someone else`);
    this.name = 'FieldConflict';
  }
}

const ATTEMPTS = 3;

/**
 * Writes one field with If-Match of the revision it was based on (ARCHITECTURE 5.16). The
 * revision also moves with every content save of the live editor, so a 412 alone is no conflict:
 * the document is read again and, when this very field still holds what `base` had, the write is
 * retried on the new revision. Only a change to the same field by someone else is a FieldConflict.
 */
export async function saveDocumentField<F extends DocumentField>(
  api: ApiClient,
  base: WikiDocument,
  field: F,
  value: WikiDocument[F],
): Promise<WikiDocument> {
  let revision = base.revision;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await api.put<WikiDocument>(
        `/documents/${base.id}`,
        { [field]: value },
        { headers: { 'if-match': `"${revision}"` } },
      );
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 412) || attempt >= ATTEMPTS) throw error;
      const current = await api.get<WikiDocument>(`/documents/${base.id}`);
      if (current[field] !== base[field]) throw new FieldConflict(field, current);
      revision = current.revision;
    }
  }
}
