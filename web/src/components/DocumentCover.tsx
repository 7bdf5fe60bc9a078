import type { FormEvent } from 'react';
import type { WikiDocument } from '../api/types';
import { CoverImage } from './CoverImage';
import { TogglePanel } from './TogglePanel';
import { useFieldPanel } from './useFieldPanel';

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
  const { opened, open, value, setValue, error, setError, busy, save } = useFieldPanel(
    document,
    'coverImageUrl',
    'cover',
  );
  const cover = document.coverImageUrl;

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
