import { useState } from 'react';
import type { WikiDocument } from '../api/types';
import { useSaveDocumentField } from '../api/useSaveDocumentField';

/**
 * The state of a small panel that edits one field of a document (icon, cover): open with the
 * current value, save or remove, and say why a save failed.
 */
export function useFieldPanel(document: WikiDocument, field: 'icon' | 'coverImageUrl', what: string) {
  const saveField = useSaveDocumentField();
  const [opened, setOpened] = useState(false);
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const open = (next: boolean) => {
    setValue(document[field] ?? '');
    setError(null);
    setOpened(next);
  };
  const save = async (next: string | null) => {
    setBusy(true);
    setError(null);
    try {
      await saveField(document, field, next);
      setOpened(false);
    } catch (failure) {
      setError(`The ${what} could not be saved: ${(failure as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return { opened, open, value, setValue, error, setError, busy, save };
}
