import { type FormEvent, useState } from 'react';
import type { WikiDocument } from '../api/types';
import { useSaveDocumentField } from '../api/useSaveDocumentField';
import { CoverImage } from './CoverImage';
import { TogglePanel } from './TogglePanel';

/** An address the page may show: https anywhere (the app's CSP), or a path on this server. */
export function isShowableImageUrl(value: string): boolean {
  if (value.startsWith('/') && !value.startsWith('//')) return true;
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

/** The cover image, and for editors a panel to set its address or remove it. */
export function DocumentCover({ document, canEdit }: { document: WikiDocument; canEdit: boolean }) {
  const saveField = useSaveDocumentField();
  const [opened, setOpened] = useState(false);
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const cover = document.coverImageUrl;

  const open = (next: boolean) => {
    setValue(cover ?? '');
    setError(null);
    setOpened(next);
  };
  const save = async (next: string | null) => {
    setBusy(true);
    setError(null);
    try {
      await saveField(document, 'coverImageUrl', next);
      setOpened(false);
    } catch (failure) {
      setError(`The cover could not be saved: ${(failure as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const url = value.trim();
    if (!url) return void save(null);
    if (!isShowableImageUrl(url)) {
      setError('Use an image address starting with https:// (or a path on this wiki, starting with /).');
      return;
    }
    void save(url);
  };

  return (
    <div className="document-cover-area">
      {cover && <CoverImage url={cover} />}
      {canEdit && (
        <TogglePanel
          buttonText={cover ? 'Change cover' : 'Add cover'}
          buttonClassName="subtle-button"
          panelLabel="Cover image"
          opened={opened}
          onOpenChange={open}
        >
          <form onSubmit={submit} className="stack-form" noValidate>
            <label>
              Cover image URL
              <input
                type="url"
                value={value}
                placeholder="https://…"
                maxLength={2048}
                onChange={(e) => setValue(e.target.value)}
              />
            </label>
            {error && <p role="alert">{error}</p>}
            <div className="form-actions">
              <button type="submit" disabled={busy}>
                Save cover
              </button>
              {cover && (
                <button type="button" disabled={busy} onClick={() => save(null)}>
                  Remove cover
                </button>
              )}
            </div>
          </form>
        </TogglePanel>
      )}
    </div>
  );
}
