import { type FormEvent, useState } from 'react';
import type { WikiDocument } from '../api/types';
import { useSaveDocumentField } from '../api/useSaveDocumentField';
import { TogglePanel } from './TogglePanel';

const SUGGESTIONS = ['📄', '📘', '📝', '📌', '💡', '✅', '🚀', '🧭', '📊', '🛠️', '🎯', '🗂️'];
const ICON_MAX = 50;

/** The document's icon, and for editors a panel to set it (any emoji or short text) or remove it. */
export function DocumentIconPicker({ document, canEdit }: { document: WikiDocument; canEdit: boolean }) {
  const saveField = useSaveDocumentField();
  const [opened, setOpened] = useState(false);
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const icon = document.icon || '';

  if (!canEdit) {
    return icon ? (
      <span className="document-icon" aria-hidden="true">
        {icon}
      </span>
    ) : null;
  }

  const open = (next: boolean) => {
    setValue(icon);
    setError(null);
    setOpened(next);
  };
  const save = async (next: string | null) => {
    setBusy(true);
    setError(null);
    try {
      await saveField(document, 'icon', next);
      setOpened(false);
    } catch (failure) {
      setError(`The icon could not be saved: ${(failure as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save(value.trim() || null);
  };

  return (
    <TogglePanel
      buttonText={icon || 'Add icon'}
      buttonLabel={icon ? `Change icon (${icon})` : undefined}
      buttonClassName={icon ? 'document-icon icon-button' : 'subtle-button'}
      panelLabel="Document icon"
      opened={opened}
      onOpenChange={open}
    >
      <form onSubmit={submit} className="stack-form">
        <label>
          Icon
          <input type="text" value={value} maxLength={ICON_MAX} onChange={(e) => setValue(e.target.value)} />
        </label>
        <fieldset className="icon-suggestions">
          <legend>Suggested icons</legend>
          {SUGGESTIONS.map((emoji) => (
            <button key={emoji} type="button" aria-label={`Use ${emoji}`} disabled={busy} onClick={() => save(emoji)}>
              {emoji}
            </button>
          ))}
        </fieldset>
        {error && <p role="alert">{error}</p>}
        <div className="form-actions">
          <button type="submit" disabled={busy}>
            Save icon
          </button>
          {icon && (
            <button type="button" disabled={busy} onClick={() => save(null)}>
              Remove icon
            </button>
          )}
        </div>
      </form>
    </TogglePanel>
  );
}
